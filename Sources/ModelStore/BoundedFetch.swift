import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Receives one small HTTP response (a Hub listing) into memory, at most `limit` bytes: a server
/// that sends without end is cut off instead of filling memory.
final class BoundedFetch: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    let limit: Int
    private(set) var data = Data()
    private(set) var status: Int?
    private(set) var error: Error?
    private(set) var overLimit = false

    init(limit: Int) { self.limit = limit }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        status = (response as? HTTPURLResponse)?.statusCode
        if response.expectedContentLength > Int64(limit) { overLimit = true }
        completionHandler(overLimit ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard !overLimit else { return }
        self.data.append(data)
        if self.data.count > limit {
            overLimit = true
            self.data = Data()
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        if !overLimit { self.error = error }
        done.signal()
    }
}

extension Downloader {
    /// A network failure in words (URLSession's own say only "NSURLErrorDomain error -1001").
    static func describe(_ error: Error, idleTimeout: Double) -> String {
        guard let code = (error as? URLError)?.code else { return error.localizedDescription }
        switch code {
        case .timedOut: return "the server sent nothing for \(Int(idleTimeout)) s"
        case .cannotFindHost, .dnsLookupFailed: return "the server's name cannot be found"
        case .cannotConnectToHost: return "the server refused the connection"
        case .networkConnectionLost: return "the connection was lost"
        case .notConnectedToInternet: return "this machine is not connected to a network"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate:
            return "the secure connection failed (\(error.localizedDescription))"
        default: return error.localizedDescription
        }
    }
}

import Foundation
import HTTP
import LookCore

extension RemoteEngine {
    /// How many questions the cameras of a watch may have in flight at once: `--engine-parallel`,
    /// else the slots the server says it has (llama-server's `/props`, `total_slots`, asked once at
    /// its root), else 1 (vLLM and others do not say; a server that does not answer is taken as 1).
    public func questionsAtOnce() -> Int {
        if let parallel = settings.parallel { return parallel }
        let slots = Self.slots(settings) ?? 1
        if slots > 1 { Log.shared.notice("\(SettingName.engine): the server has \(slots) slots; as many questions go to it at once") }
        return slots
    }

    /// The `total_slots` of the server's `/props`, when it has them (1 to 64).
    static func slots(_ settings: Settings) -> Int? {
        guard var parts = URLComponents(string: settings.url) else { return nil }
        (parts.path, parts.query) = ("/props", nil)
        guard let url = parts.string else { return nil }
        var body: [UInt8] = []
        let headers = settings.apiKey.map { [("Authorization", "Bearer \($0)")] } ?? []
        let answer = HTTPRequest(url: url, headers: headers, connectLimit: settings.connectLimit, timeLimit: 5).send(received: { bytes in
            body += bytes
            return body.count < 1 << 20
        })
        guard answer.status == 200, answer.error == nil,
            let props = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any], let slots = props["total_slots"] as? Int
        else { return nil }
        return (1...64).contains(slots) ? slots : nil
    }
}

import LookCore

/// What can go wrong loading or running a vision-language model. Each description is a sentence a
/// user can act on.
public enum VLMError: Error, CustomStringConvertible, Equatable {
    case fileMissing(role: String, path: String)
    case notGGUF(role: String, path: String)
    case notAFile(role: String, path: String)
    case unreadable(role: String, path: String)
    case wrongKind(role: String, path: String, found: String)
    case modelLoadFailed(path: String, reason: String)
    case projectorUnsupported(path: String, type: String, build: String)
    case projectorMismatch(model: String, mmproj: String, reason: String)
    case projectorLoadFailed(path: String, reason: String)
    case noVision(path: String)
    case pairCannotRun(reason: String)
    case promptTooLong(tokens: Int, context: Int)
    case imageFailed(reason: String)
    case decodeFailed(code: Int32)
    /// The scripted engine's stand-in for a failed call (a script line `!fail REASON`).
    case scripted(reason: String)
    /// The remote engine's server failed the question.
    case remote(reason: String)

    public var description: String {
        switch self {
        case .fileMissing(let role, let path):
            // A script is the user's own file: pulling a model does not make it.
            return role == "script"
                ? "The script file \(path) does not exist. Check the path (script:FILE names a file of answers, a line a frame)."
                : "The \(role) file \(path) does not exist. Check the path, or run `lookd pull` to download the model."
        case .notAFile(let role, let path):
            return "The \(role) \(path) is a folder, a device or a pipe, not a GGUF file. Give the path of the .gguf file."
        case .unreadable(let role, let path):
            return "The \(role) file \(path) cannot be read (check its permissions)."
        case .notGGUF(let role, let path):
            return "The \(role) file \(path) is not a GGUF file. lookd runs llama.cpp's GGUF models."
        case .wrongKind(let role, let path, let found):
            return
                "The \(role) file \(path) is \(found). Give the language model with \(SettingName.model) and the vision projector (mmproj) with \(SettingName.mmproj)."
        case .modelLoadFailed(let path, let reason):
            return "The language model \(path) did not load: \(reason)."
        case .projectorUnsupported(let path, let type, let build):
            return
                "This llama.cpp \(build), cannot run the projector type \(type) of \(path). Use a model whose mmproj this build supports, or a newer llama.cpp."
        case .projectorMismatch(let model, let mmproj, let reason):
            return "The mmproj \(mmproj) does not fit the language model \(model) (\(reason)). Use the mmproj published with that model."
        case .projectorLoadFailed(let path, let reason):
            return "The mmproj \(path) did not load: \(reason)."
        case .noVision(let path):
            return "The mmproj \(path) has no vision encoder; lookd needs one that reads images."
        case .pairCannotRun(let reason):
            return "lookd cannot run this model: \(reason)."
        case .promptTooLong(let tokens, let context):
            return "The prompt needs \(tokens) tokens, more than the context of \(context); use a smaller picture or a shorter prompt."
        case .imageFailed(let reason):
            return "The picture could not be encoded: \(reason)."
        case .decodeFailed(let code):
            return "The model failed while reading the prompt (llama_decode returned \(code))."
        case .scripted(let reason):
            return "The script failed this question: \(reason)."
        case .remote(let reason):
            return "The engine's server failed the question: \(reason)."
        }
    }
}

import ModelStore
import Settings
import VLM

/// Which model a command runs (`ModelSettings.load` in Settings), its failures as the command's.
enum ModelChoice {
    static func load(_ settings: ModelSettings) throws(CommandFailure) -> any VisionLanguageModel {
        do { return try settings.load() } catch { throw failure(error) }
    }

    static func remote(_ settings: ModelSettings) throws(CommandFailure) -> RemoteEngine? {
        do { return try settings.remote() } catch { throw failure(error) }
    }

    static func pull(_ id: String) throws(CommandFailure) -> ModelCache.Manifest {
        do { return try ModelSettings.pull(id) } catch { throw failure(error) }
    }

    private static func failure(_ error: ModelLoadFailure) -> CommandFailure {
        switch error {
        case .usage(let text): usage(text)
        case .failed(let text): CommandFailure(code: .modelFailed, message: text)
        }
    }
}

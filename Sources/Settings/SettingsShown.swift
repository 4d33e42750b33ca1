import LookCore

/// The settings in force as `lookd check` shows them: each value (a password or token masked) and
/// where it came from.
public enum SettingsShown {
    public static func lines(_ settings: [SettingInForce]) -> [String] {
        let catalog = WatchSettings.catalog
        return settings.map { s in
            let text = shown(s, catalog)
            let value = text.padding(toLength: max(28, text.count), withPad: " ", startingAt: 0)
            let live = catalog.info(s.name)?.reloadable == true ? "  live" : ""
            return "  " + s.name.padding(toLength: 20, withPad: " ", startingAt: 0) + " " + value + "  " + s.origin.description + live
        }
    }

    public static func json(_ settings: [SettingInForce]) -> JSON {
        let catalog = WatchSettings.catalog
        return .array(
            settings.map { s in
                JSON.object([
                    ("name", .string(s.name)), ("value", .string(shown(s, catalog))), ("from", .string(s.origin.description)),
                    ("live", .bool(catalog.info(s.name)?.reloadable == true)),
                ])
            })
    }

    /// The settings whose value is a URL lookd sends to: shown as scheme, host and port.
    static let outbound: Set<String> = [SettingName.engine.key, SettingName.mqtt.key]

    /// The value, or the default in words when the setting has no value of its own.
    private static func shown(_ s: SettingInForce, _ catalog: SettingCatalog) -> String {
        if outbound.contains(s.name), let url = s.value, url.contains("://") { return Secrets.outbound(url: url) }
        return Secrets.maskedPasswords(in: s.value ?? catalog.defaults[s.name] ?? "none")
    }
}

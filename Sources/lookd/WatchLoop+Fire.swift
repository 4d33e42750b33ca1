import Capture
import Foundation
import LookCore
import Reactions
import Rules

extension WatchLoop {
    /// Fires rule `i`: its reaction, its `fire` event and record; an effect also holds the frame and
    /// draws its edit there. Returns the seconds held (0 for other reactions).
    func fire(rule i: Int, frame index: Int, captured frame: Frame, shown: RGBImage, place: Place?) -> Double {
        let rule = rules[i]
        let number = record.fires.count + 1
        let result = reactor.perform(rule.reaction, condition: rule.condition, fire: number, at: Date())
        let now = clock.now()
        var fields: [(String, JSON)] = [
            ("fire", .int(number)),
            ("rule", .int(i + 1)),
            ("condition", .string(rule.condition)),
            ("reaction", .string(rule.reaction.name)),
            ("kind", .string(rule.reaction.kind)),
            ("frame", .int(index)),
            ("latency_ms", .number((now - frame.captured) * 1000, places: 1)),
            ("performed", .bool(result.performed)),
            ("shown", .string(result.shown)),
            ("note", .optional(result.note)),
        ]
        if let shownAt = frame.shownAt { fields.append(("since_change_ms", .number((now - shownAt) * 1000, places: 1))) }
        if let cell = place?.cell { fields.append(("cell", .int(cell.number))) }
        var edit: (Effect, EffectRenderer)?
        switch rule.reaction {
        case .effect(let effect, let sound):
            let box = place?.editBox
            fields += [("effect", .string(effect.rawValue)), ("sound_chosen", .string(sound.rawValue)),
                       ("box", Place.json(place?.box)), ("box_unit", Self.unitBox(box)),
                       ("place_text", .optional(place?.text.map { String($0.prefix(200)) })),
                       ("place_ms", .optional(place.map { $0.seconds * 1000 }, places: 1)),
                       ("place_tokens", .optional(place?.text == nil ? nil : place?.tokens)),
                       ("held_frame", .int(index)), ("hold_s", .number(settings.hold))]
            edit = (effect, EffectRenderer(effect: effect, box: box, frame: shown))
        case .sound(let sound): fields.append(("sound_chosen", .string(sound.rawValue)))
        case .timer(let minutes): fields.append(("minutes", .number(minutes)))
        case .say(let line): fields.append(("line", .string(line)))
        default: break
        }
        // An effect's fire line comes when its hold starts; its hold line when the hold ends.
        events.write("fire", fields)
        record.countFire(rule: rule, place: place)
        let outcome = result.performed ? result.shown : "recorded, not performed: \(result.note ?? "")"
        Log.shared.notice("fire: \(rule.condition) → \(rule.reaction.name) (frame \(index); \(outcome))")
        guard let (effect, renderer) = edit else {
            record.fires.append(.object(fields))
            return 0
        }
        let hold = EffectHold(source: source, clock: clock, seconds: settings.hold)
        let folder = effectsFolder()
        let done = hold.run(renderer, png: (folder as NSString).appendingPathComponent("catch\(number).png"),
                            apng: (folder as NSString).appendingPathComponent("edit\(number).apng"))
        let holdFields: [(String, JSON)] = [
            ("hold_ms", .number(done.heldSeconds * 1000, places: 1)),
            ("paused_t_s", .optional(done.pausedAt)), ("resumed_t_s", .optional(done.resumedAt)),
            ("png", .optional(done.film?.png)), ("apng", .optional(done.film?.apng)),
            ("pictures", .optional(done.film?.pictures)),
            ("render_ms", .optional(done.film.map { $0.seconds * 1000 }, places: 1)),
            ("render_wait_ms", .number(done.renderWait * 1000, places: 1)),
            ("render_error", .optional(done.renderError)),
        ]
        events.write("hold", [("fire", .int(number)), ("rule", .int(i + 1)), ("condition", .string(rule.condition)),
                              ("effect", .string(effect.rawValue)), ("frame", .int(index))] + holdFields)
        if let error = done.renderError { Log.shared.error("effect \(effect.rawValue) on frame \(index): \(error)") }
        record.fires.append(.object(fields + holdFields))
        record.addHold(ms: done.heldSeconds * 1000, render: done.film?.seconds)
        return done.heldSeconds
    }

    /// Where effects' pictures go: `--effects`, else `--frames`, else `watch-<epoch>-effects` in the
    /// record folder; made when the first effect fires.
    func effectsFolder() -> String {
        let folder = settings.effectsDir ?? settings.framesDir
            ?? (settings.recordDir as NSString).appendingPathComponent("watch-\(record.epoch)-effects")
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The box on the picture: x, y, width and height in units of the picture (0–1); null for none.
    static func unitBox(_ box: Box?) -> JSON {
        guard let b = box else { return .null }
        return .array([b.left, b.top, b.right - b.left, b.bottom - b.top].map { .number(Double($0) / 1000, places: 3) })
    }
}

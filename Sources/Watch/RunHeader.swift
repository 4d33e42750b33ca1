import Config
import Foundation
import Grounding
import LookCore
import Records
import Rules
import VLM

/// The run record's header: what ran, on what, with which rules and settings.
public struct RunHeader {
    let config: WatchConfig
    let version: String
    let epoch: Int
    let eventLog: String?

    public init(config: WatchConfig, version: String, epoch: Int, eventLog: String?) {
        (self.config, self.version, self.epoch, self.eventLog) = (config, version, epoch, eventLog)
    }

    public func fields(model: any VisionLanguageModel, source: SourceInfo, rules set: RuleSet, rulesSource: String, gate: Bool) -> [(String, JSON)] {
        let rules = set.rules
        let placeAsked = config.cells == .box || config.cells == .ask
        let masks = (config.gate.masks + set.gateMasks).map { JSON.array([$0.left, $0.top, $0.right, $0.bottom].map { .number($0) }) }
        return config.camera.recordFields + [
            ("version", .string(version)),
            ("started", .string(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(epoch))))),
            ("engine", .string(model.engineName)), ("model", model.recordFiles),
            ("source", .object(source.fields)),
            ("rules_source", .string(rulesSource)), ("rules", RulesJSON.list(rules)),
            ("prompt", .string(config.prompt(for: rules))),
            ("cells_form", .string(config.cells.rawValue)), ("cell_words", .bool(config.cellWords)),
            ("place_prompt", placeAsked ? .string(PlaceAsker.prompt(form: config.cells, cellWords: config.cellWords)) : .null),
            (
                "place_max_tokens",
                config.cells == .box ? .int(PlaceQuestions.boxTokens) : config.cells == .ask ? .int(PlaceQuestions.cellTokens) : .null
            ),
            ("grid", .bool(config.grid)),
            (
                "settings",
                .object([
                    ("cooldown", .number(config.cooldown)), ("tokens", .int(config.answerTokens(rules: rules.count))),
                    ("seconds", .optional(config.seconds)), ("hold", .number(config.hold)),
                    ("photo_seconds", .number(config.sourceOptions.photoSeconds)),
                    ("size", .int(config.sourceOptions.maxSide)), ("frames_dir", .optional(config.framesDir)),
                    ("log", .optional(eventLog)), ("gate", .bool(gate)),
                    ("gate_threshold", .number(config.gate.threshold, places: 4)), ("gate_fps", .number(config.gate.fps)),
                    ("gate_max", .number(config.gate.maxSeconds)), ("gate_masks", .array(masks)),
                ])
            ),
            ("settings_in_force", config.settingsInForce),
        ]
    }
}

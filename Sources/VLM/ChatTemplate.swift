internal import CLlama

/// The chat form lookd wraps a question in: ChatML, as the MiniCPM-V and Qwen families use,
/// with the picture first, then the text. Thinking is off: where the vocabulary has `<think>`,
/// the answer starts after an empty thinking block, so the model answers directly (MiniCPM-V 4.7's
/// own template thinks unless `enable_thinking` is false). MiniCPM-V 4.6 and 4.7 put the picture's
/// number before it, `<image_id>0</image_id>`, as transformers' processors do by default.
struct ChatTemplate {
    let userPrefix: String
    let afterImage = "\n"
    let assistantPrefix: String

    /// The projectors whose processors number each picture.
    static let numberedProjectors: Set<String> = ["minicpmv4_6", "minicpmv4_7"]

    init(vocab: OpaquePointer, projector: String?) {
        let thinks = Self.isSingleToken("<think>", vocab: vocab) && Self.isSingleToken("</think>", vocab: vocab)
        assistantPrefix = "<|im_end|>\n<|im_start|>assistant\n" + (thinks ? "<think>\n\n</think>\n\n" : "")
        let numbered =
            projector.map(Self.numberedProjectors.contains) ?? false
            && Self.isSingleToken("<image_id>", vocab: vocab) && Self.isSingleToken("</image_id>", vocab: vocab)
        userPrefix = "<|im_start|>user\n" + (numbered ? "<image_id>0</image_id>" : "")
    }

    /// The text before the picture and the text after it, for `prompt`.
    func wrap(_ prompt: String) -> (before: String, after: String) {
        (userPrefix, afterImage + prompt + assistantPrefix)
    }

    private static func isSingleToken(_ text: String, vocab: OpaquePointer) -> Bool {
        var tokens = [llama_token](repeating: 0, count: 8)
        let n = llama_tokenize(vocab, text, Int32(text.utf8.count), &tokens, Int32(tokens.count), false, true)
        return n == 1
    }
}

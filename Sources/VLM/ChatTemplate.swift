import CLlama

/// The chat form lookd wraps a question in: ChatML, as the MiniCPM-V and Qwen families use,
/// with the picture first, then the text. Thinking is off: where the vocabulary has `<think>`,
/// the answer starts after an empty thinking block, so the model answers directly.
struct ChatTemplate {
    let userPrefix = "<|im_start|>user\n"
    let afterImage = "\n"
    let assistantPrefix: String

    init(vocab: OpaquePointer) {
        let thinks = Self.isSingleToken("<think>", vocab: vocab) && Self.isSingleToken("</think>", vocab: vocab)
        assistantPrefix = "<|im_end|>\n<|im_start|>assistant\n" + (thinks ? "<think>\n\n</think>\n\n" : "")
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

import Foundation

/// Lines of standard input, read on a thread of their own so the demo stays live while it
/// waits; a prompt is shown only on a terminal.
struct InputLines: Sendable {
  let isTerminal: Bool

  static func standardInput() -> InputLines {
    InputLines(isTerminal: isatty(STDIN_FILENO) == 1)
  }

  func prompted(by prompt: String) -> AsyncStream<String> {
    let isTerminal = isTerminal
    return AsyncStream { continuation in
      Thread {
        while true {
          if isTerminal { Output.write(prompt) }
          guard let line = readLine() else { break }
          continuation.yield(line)
        }
        continuation.finish()
      }.start()
    }
  }
}

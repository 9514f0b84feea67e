import ArgumentParser
import Tether

/// `reset KEY`: removes the stored value, so every holder shows its default again.
struct ResetCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "reset",
    abstract: "Remove a key's stored value: holders show its default (or registered value).",
    discussion: "The file is deleted, the defaults line removed; a file that does not decode is "
      + "kept beside as NAME.corrupt-<time>.")

  @OptionGroup var options: ConfigOptions
  @Argument(help: "The key's name.", completion: keyNameCompletion) var key: String

  func run() async throws {
    try await options.withSession { session in
      let key = try session.key(key)
      do {
        try await key.reset()
      } catch {
        throw fail("\(error)")
      }
    }
  }
}

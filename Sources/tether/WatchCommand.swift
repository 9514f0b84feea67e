import ArgumentParser
import Dispatch
import Foundation
import Tether

/// `tether watch KEY...`: one line per change, as it happens, until interrupted.
struct WatchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "watch", abstract: "Print each change of the keys as it happens (Ctrl-C ends).")

  @OptionGroup var options: ConfigOptions
  @Argument(help: "The keys to watch.") var keys: [String]

  func run() async throws {
    let registry = try options.registry()
    var watches: [SharedSubscription] = []
    for key in keys {
      let mapped = try MappedKey(key, in: registry)
      guard let strategy = mapped.strategy else {
        printError("\(key): not stored in a file; nothing to watch")
        throw ExitCode.failure
      }
      do {
        watches.append(
          try strategy.watchStoredText(of: key, options: mapped.options) { change in
            switch change {
            case .success(.text(let text, _)): report(key, text)
            case .success(.absent(let reason)): report(key, reason)
            case .failure(let error): report(key, "unreadable: \(error)")
            }
          })
      } catch let error as StoredTextError {
        printError("\(key): \(error)")
        throw ExitCode.failure
      }
    }
    signal(SIGINT, SIG_IGN)
    let interrupted = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
    interrupted.setEventHandler { Foundation.exit(0) }
    interrupted.resume()
    printError("watching \(keys.joined(separator: ", ")); Ctrl-C ends")
    // Idles until SIGINT ends the process: the watches deliver on the watcher's queue.
    while true {
      try await Task.sleep(for: .seconds(3600))
      withExtendedLifetime((watches, interrupted)) {}
    }
  }
}

/// One line per change: `2026-11-21T09:30:00Z count 42`.
private func report(_ key: String, _ value: String) {
  let time = ISO8601DateFormatter().string(from: Date())
  write("\(time) \(key) \(value)\n")
}

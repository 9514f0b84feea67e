import ArgumentParser
import Dispatch
import Foundation
import Tether
import TetherDefaults
import TetherFiles
import TetherWatcher

/// `tether watch KEY...`: one line per change, as it happens, until interrupted.
struct WatchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "watch", abstract: "Print each change of the keys as it happens (Ctrl-C ends).")

  @OptionGroup var options: ConfigOptions
  @Argument(help: "The keys to watch.") var keys: [String]

  func run() async throws {
    let registry = try options.registry()
    var watches: [FileWatch] = []
    for key in keys {
      switch try KeyLocation(of: key, in: registry) {
      case .file(let url):
        watches.append(
          FileWatcher.shared.watch(ResolvedPath.of(url)) { content in
            switch content {
            case .missing: report(key, "no value (file removed)")
            case .unreadable(let error): report(key, "unreadable: \(error)")
            case .data(let data): report(key, String(decoding: data, as: UTF8.self))
            }
          })
      case .defaults(let store, let name):
        let last = LastLiteral(try DefaultsFile.entry(name, in: store.path)?.value)
        watches.append(
          FileWatcher.shared.watch(store.path) { _ in
            do {
              let literal = try DefaultsFile.entry(name, in: store.path)?.value
              guard last.replace(with: literal) else { return }
              report(key, literal.map(INIString.encode) ?? "no value (line removed)")
            } catch {
              report(key, "unreadable: \(error)")
            }
          })
      case .memory, .other:
        printError("\(key): not stored in a file; nothing to watch")
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

/// The last literal seen for a defaults key, so only its own changes are reported.
private final class LastLiteral: @unchecked Sendable {
  // @unchecked: `value` is read and written only under `lock`.
  private let lock = NSLock()
  private var value: String?

  init(_ value: String?) { self.value = value }

  /// Stores `literal`; whether it differs from the last one.
  func replace(with literal: String?) -> Bool {
    lock.withLock {
      defer { value = literal }
      return value != literal
    }
  }
}

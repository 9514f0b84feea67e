import ArgumentParser
import Dispatch
import Foundation
import Tether

/// `watch KEY...`: each key's value now, then one line per change, until interrupted.
struct WatchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "watch",
    abstract: "Print each key's value, then each change as it happens (Ctrl-C ends).",
    discussion: "A key that cannot be watched is reported and skipped.")

  @OptionGroup var options: ConfigOptions
  @OptionGroup var output: OutputOptions
  @Argument(help: "The keys to watch.", completion: keyNameCompletion) var keys: [String]

  func run() async throws {
    let json = output.json
    try await options.withSession { session in
      var watched: [ToolKey] = []
      for name in keys {
        let key: ToolKey
        do {
          key = try session.lookUp(name)
        } catch {
          Output.error("\(error); not watched")
          continue
        }
        switch key.access {
        case .declared, .storedText: watched.append(key)
        case .opaque, .foreign: Output.error(key.unreachable("watch") + "; not watched")
        }
      }
      guard !watched.isEmpty else { throw fail("no key to watch") }
      let interrupted = Self.endOnInterrupt()
      Output.error("watching \(watched.map(\.name).joined(separator: ", ")); Ctrl-C ends")
      await withTaskGroup(of: Void.self) { group in
        for key in watched {
          group.addTask { await Self.watch(key, json: json) }
        }
      }
      withExtendedLifetime(interrupted) {}
    }
  }

  private static func watch(_ key: ToolKey, json: Bool) async {
    let report: @Sendable (Result<ShownValue?, any Error>) -> Void = { change in
      Self.report(key.name, change, json: json)
    }
    switch key.access {
    case .declared(let declared):
      await DeclaredValues.watch(declared) { change in report(change.map { $0 }) }
    case .storedText(let strategy):
      do {
        let subscription = try strategy.watchStoredText(of: key.name, options: key.options) {
          change in
          report(change.map(Self.shown))
        }
        // The value now, once the watch is in place: a change after this is reported.
        report(Result { Self.shown(try strategy.storedText(of: key.name, options: key.options)) })
        while !Task.isCancelled {
          do {
            try await Task.sleep(for: .seconds(3600))
          } catch {
            break
          }
        }
        subscription.cancel()
      } catch {
        Output.error("\(key.name): \(error); not watched")
      }
    case .opaque, .foreign: return
    }
  }

  private static func shown(_ text: StoredText) -> ShownValue? {
    switch text {
    case .text(let text, _): return ToolKey.shown(stored: text)
    case .absent: return nil
    }
  }

  /// One line per value: `2026-11-21T09:30:00Z count 42`, or an NDJSON object.
  private static func report(_ key: String, _ change: Result<ShownValue?, any Error>, json: Bool) {
    let time = ISO8601DateFormatter().string(from: Date())
    switch (change, json) {
    case (.success(let value?), false): Output.line("\(time) \(key) \(value.text)")
    case (.success(nil), false): Output.line("\(time) \(key) (no value)")
    case (.failure(let error), false): Output.line("\(time) \(key) unreadable: \(error)")
    case (.success(let value), true):
      Output.json(["time": time, "key": key, "value": value?.json ?? NSNull()])
    case (.failure(let error), true):
      Output.json(["time": time, "key": key, "error": "\(error)"])
    }
  }

  /// Ends the process on SIGINT with status 0: watching ends only that way.
  private static func endOnInterrupt() -> any DispatchSourceSignal {
    signal(SIGINT, SIG_IGN)
    let interrupted = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
    interrupted.setEventHandler { Foundation.exit(0) }
    interrupted.resume()
    return interrupted
  }
}

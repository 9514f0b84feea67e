import Foundation
import Observation
import Tether
import TetherPostgres
import TetherTestHelperSupport

// A holder of a PostgreSQL key in a process of its own, driven line by line from standard input:
// for tests of processes (and hosts) sharing a row live.
extension Helper {
  /// `pgHold`: see ``HelperCommand/pgHold(config:key:)``.
  static func pgHold(config: String, key: String) {
    let commands = standardInputLines()
    let done = DispatchSemaphore(value: 0)
    Task {
      do {
        try await TetherSystem.withBootstrap(
          configuration: .string(config), strategies: [PostgresStrategy.self]
        ) {
          let value = Shared(wrappedValue: 0, .registered(key))
          let reporter = Task { await reportChanges(of: value) }
          for await command in commands {
            guard await obey(command, value) else { break }
          }
          await TetherSystem.flush()
          reporter.cancel()
        }
      } catch {
        fail("bootstrap: \(error)")
      }
      done.signal()
    }
    done.wait()
    exit(0)
  }

  /// Carries out one command line; false for `exit` (or a line that is no command: the test
  /// that sent it is broken, and the helper ends rather than guess).
  private static func obey(_ command: String, _ value: Shared<Int>) async -> Bool {
    let words = command.split(separator: " ")
    switch (words.first, words.count) {
    case ("set", 2):
      guard let new = Int(words[1]) else { return false }
      value.withLock { $0 = new }
    case ("save", 1):
      let saving = value.wrappedValue
      var line = PostgresHolderLine()
      do {
        try await value.save()
        line.saved = saving
      } catch {
        line.saveFailed = String(describing: error)
      }
      printLine(line.encoded())
    default:
      if command != "exit" { FileHandle.standardError.write(Data("bad: \(command)\n".utf8)) }
      return false
    }
    return true
  }

  /// Prints a state line at once, then whenever the state changes: checked when Observation
  /// says one of the properties read changes (after the change, on this task) and every 20 ms
  /// besides, for a change that landed between a check and the next tracking.
  private static func reportChanges(of value: Shared<Int>) async {
    let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    let ticker = Task {
      while !Task.isCancelled {
        try? await Task.sleep(for: .milliseconds(20))
        wake.yield()
      }
    }
    defer { ticker.cancel() }
    var last: PostgresHolderLine?
    func check() {
      let now = withObservationTracking {
        state(of: value)
      } onChange: {
        wake.yield()
      }
      if now != last { printLine(now.encoded()) }
      last = now
    }
    check()
    for await _ in wakes {
      if Task.isCancelled { break }
      check()
    }
  }

  /// What `value`'s holder shows now.
  private static func state(of value: Shared<Int>) -> PostgresHolderLine {
    var line = PostgresHolderLine()
    line.value = value.wrappedValue
    line.loading = value.isLoading
    line.loadError = value.loadError.map { String(describing: $0) }
    line.saveError = value.saveError.map { String(describing: $0) }
    return line
  }

  /// Writes `line` and a newline to standard output unbuffered: one `write`, so lines printed
  /// from two tasks never mix.
  private static func printLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
  }

  /// Standard input's lines, read on a thread of their own; the stream ends with the input.
  private static func standardInputLines() -> AsyncStream<String> {
    let (lines, continuation) = AsyncStream<String>.makeStream()
    let reader = Thread {
      while let line = readLine() { continuation.yield(line) }
      continuation.finish()
    }
    reader.start()
    return lines
  }
}

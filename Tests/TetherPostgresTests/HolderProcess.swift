import Foundation
import Testing
import TetherTestHelperSupport
import TetherTesting

/// A `tether-test-helper` process holding one PostgreSQL key (``HelperCommand/pgHold(config:key:)``),
/// optionally on another "host" (started through `ip netns exec`): what it printed so far, and
/// commands sent to it line by line.
///
/// ```swift
/// let a = try HolderProcess("a", config: text, key: "count")
/// await a.loaded()
/// try await a.setAndSave(5)
/// await expectEventually { b.value == 5 }
/// ```
final class HolderProcess: Sendable {
  /// The name tests show it by.
  let name: String
  /// The running helper.
  let child: RunningChild

  /// Starts a holder of `key` bootstrapped with the config text `config`; with `launcher`
  /// (`TestNetwork.execPrefix(_:)`), that command runs the helper.
  init(_ name: String, config: String, key: String, launcher: [String] = []) throws {
    self.name = name
    let helper = [helperPath] + (try HelperCommand.pgHold(config: config, key: key).arguments())
    let command = launcher + helper
    child = try RunningChild(command[0], Array(command.dropFirst()))
  }

  /// Every complete line printed so far.
  var lines: [PostgresHolderLine] { PostgresHolderLine.parse(child.text) }
  /// The state lines, in order.
  var states: [PostgresHolderLine] { lines.filter(\.isState) }
  /// The last state printed.
  var state: PostgresHolderLine? { states.last }
  /// The value held, as last printed.
  var value: Int? { state?.value }
  /// The values it showed, in order, each change once.
  var values: [Int] {
    states.compactMap(\.value).reduce(into: []) { shown, value in
      if shown.last != value { shown.append(value) }
    }
  }
  /// The outcomes of its `save` commands, in order.
  var saves: [PostgresHolderLine] { lines.filter { $0.saved != nil || $0.saveFailed != nil } }
  /// Whether it has loaded its row and reaches the server.
  var isCurrent: Bool { state.map { $0.loading == false && $0.loadError == nil } ?? false }

  /// What it printed, for a failing expectation's comment.
  var transcript: Comment {
    "\(name) printed:\n\(child.text.suffix(4_000))\nerrors:\n\(child.errorText.suffix(2_000))"
  }

  /// Waits until it has loaded and reaches the server.
  func loaded(timeout: Duration = .seconds(20)) async {
    await expectEventually(timeout: timeout, "\(name) loads\n\(transcript)") { isCurrent }
  }

  /// Sets the value (`withLock`), to be written when the throttle lets it.
  func set(_ value: Int) { child.send("set \(value)") }

  /// Sets the value and saves it, waiting until the save has returned; its outcome.
  @discardableResult
  func setAndSave(_ value: Int, timeout: Duration = .seconds(20)) async -> PostgresHolderLine? {
    let before = saves.count
    child.send("set \(value)")
    child.send("save")
    await expectEventually(timeout: timeout, "\(name) saves \(value)\n\(transcript)") {
      saves.count > before
    }
    return saves.dropFirst(before).first
  }

  /// Tells it to flush and exit; kills it if it has not exited within `timeout`. Its status.
  @discardableResult
  func exit(timeout: Duration = .seconds(15)) async -> Int32 {
    if child.process.isRunning { child.send("exit") }
    return await child.finish(timeout: timeout)
  }

  /// Runs `body` with holders started by `start`, each ended (told to exit, killed if it does
  /// not) afterwards, whether `body` returns or throws.
  static func with<Result>(
    _ start: () throws -> [HolderProcess],
    _ body: ([HolderProcess]) async throws -> Result
  ) async throws -> Result {
    let holders = try start()
    do {
      let result = try await body(holders)
      for holder in holders {
        let status = await holder.exit()
        #expect(status == 0, "\(holder.name) exits cleanly\n\(holder.transcript)")
      }
      return result
    } catch {
      for holder in holders { await holder.exit(timeout: .seconds(5)) }
      throw error
    }
  }
}

extension HolderProcess {
  /// Runs `body` with holders "A" and "B" of `key` under `config`, both loaded, ended as
  /// ``with(_:_:)`` ends them.
  static func withTwo<Result>(
    config: String, key: String,
    _ body: (HolderProcess, HolderProcess) async throws -> Result
  ) async throws -> Result {
    try await with({
      [
        try HolderProcess("A", config: config, key: key),
        try HolderProcess("B", config: config, key: key),
      ]
    }) { holders in
      let (a, b) = (holders[0], holders[1])
      await a.loaded()
      await b.loaded()
      return try await body(a, b)
    }
  }
}

/// Whether `values` never go down: a holder of a value only ever set higher never shows an
/// older one again.
func neverGoesBack(_ values: [Int]) -> Bool {
  zip(values, values.dropFirst()).allSatisfy { $0 <= $1 }
}

import Foundation
import Tether
import TetherDefaults
import TetherFileStorage
import TetherPostgres
import TetherTestHelperSupport

// Transactions from a process of their own: counting with others, and killed while counting.
extension Helper {
  /// `transact`: see ``HelperCommand/transact(store:file:key:count:mixed:tag:go:)``.
  static func transact(
    store: TransactionStore, file: String, key: String, count: Int, mixed: String?, tag: String,
    go: String
  ) {
    holding(store, file: file, key: key, default: 0) { counter in
      emit(try await increment(counter, times: count, mixed: mixed, tag: tag, go: go))
    }
  }

  /// `rally`: see ``HelperCommand/rally(store:file:key:parity:until:go:)``.
  static func rally(
    store: TransactionStore, file: String, key: String, parity: Int, until: Int, go: String
  ) {
    holding(store, file: file, key: key, default: 0) { counter in
      write("\(go).\(parity).ready", "")
      waitFor(go)
      var failures: [String: Int] = [:]
      let deadline = ContinuousClock.now + .seconds(120)
      while case let seen = counter.wrappedValue, seen < until {
        guard ContinuousClock.now < deadline else { fail("the rally stopped at \(seen)") }
        guard seen % 2 == parity else {
          // Not a spin: two helpers spinning beside the whole suite slow it many times over.
          usleep(100)
          continue
        }
        counter.withLock { if $0 == seen { $0 = seen + 1 } }
        do {
          try await counter.save()
        } catch {
          failures["\(error)", default: 0] += 1
        }
      }
      var report = HelperReport()
      report.seen = counter.wrappedValue
      report.saveFailures = failures
      emit(report)
    }
  }

  /// Runs `body`, waiting for it on this thread, with a holder of the value a transaction or
  /// reset scenario works on: the file at `file`, `key` of the defaults file `file` (which
  /// every registered name maps to), or the row `key` of the PostgreSQL table the config file
  /// `file` names, starting from `initial`.
  static func holding(
    _ store: TransactionStore, file: String, key: String, default initial: Int,
    _ body: @escaping @Sendable (Shared<Int>) async throws -> Void
  ) {
    let config: TetherConfiguration =
      switch store {
      case .file, .defaults:
        .string(
          """
          [keys]
          * = defaults

          [strategy.defaults]
          file = \(file)
          """)
      case .postgres: .file(file)
      }
    let done = DispatchSemaphore(value: 0)
    Task {
      do {
        try await TetherSystem.withBootstrap(
          configuration: config, strategies: [DefaultsStrategy.self, PostgresStrategy.self]
        ) {
          let value =
            switch store {
            case .file: Shared(wrappedValue: initial, .fileStorage(URL(filePath: file)))
            case .defaults, .postgres: Shared(wrappedValue: initial, .registered(key))
            }
          try await body(value)
        }
      } catch {
        fail("bootstrap: \(error)")
      }
      done.signal()
    }
    done.wait()
  }

  private static func increment(
    _ counter: Shared<Int>, times: Int, mixed: String?, tag: String, go: String
  ) async throws -> HelperReport {
    let own = mixed.map { Shared(wrappedValue: 0, .registered($0)) }
    write("\(go).\(tag).ready", "")
    waitFor(go)
    var failures: [String: Int] = [:]
    var round = 0
    while times == 0 || round < times {
      round += 1
      do {
        let wrote = try await counter.transaction { value -> Int in
          value += 1
          return value
        }
        // Unbuffered, so that a parent that kills this process has every line it printed.
        FileHandle.standardOutput.write(Data("acked \(wrote)\n".utf8))
      } catch {
        failures["transaction: \(error)", default: 0] += 1
      }
      guard let own else { continue }
      own.withLock { $0 += 1 }
      do {
        try await own.save()
      } catch {
        failures["save: \(error)", default: 0] += 1
      }
    }
    var report = HelperReport()
    report.saveFailures = failures
    report.seen = own?.wrappedValue
    return report
  }
}

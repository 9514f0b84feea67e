import Testing
import Tether

/// A `Codable` struct the values check stores.
struct ConformanceRecord: Codable, Equatable, Sendable {
  var title: String
  var count: Int
  var tags: [String]
}

/// Values of each type the suite exercises, through the strategy's own keys (so that each
/// continuation is the suite's, counted) and then through a holder.
extension Checks {
  func values() async {
    await values("Int", "values-int", [1, -2])
    await values("String", "values-string", ["plain", "two words, \"quoted\" = ü"])
    // A stored `nil` is a value: it must load as `nil`, not as "nothing stored".
    await values("Int?", "values-optional", [7, nil, 8] as [Int?])
    await values(
      "ConformanceRecord", "values-record",
      [
        ConformanceRecord(title: "first", count: 1, tags: []),
        ConformanceRecord(title: "second", count: 2, tags: ["a", "b"]),
      ])
    // About 100 KB as JSON, 156 KB in memory.
    await values(
      "[Int] (100 KB)", "values-array", [Array(0..<20_000), Array((0..<20_000).reversed())])
  }

  /// Checks one type with `samples`: nothing stored loads as nothing; each sample saved with
  /// context `.userInitiated` loads back; the last is saved with `.didSet` instead, and must
  /// land too (a throttled save may take up to the deadline); a new holder loads it.
  private func values<Value: Sendable & Equatable>(
    _ type: String, _ keyName: String, _ samples: [Value]
  ) async {
    let check = "values \(type)"
    let key: any SharedKey<Value>
    do {
      key = try directKey(keyName, as: Value.self)
    } catch let error as TetherError {
      if case .unsupportedType = error {
        return findings.skip(type, because: "\(error)")
      }
      return fail("\(check): key(named:as:) threw \(error)")
    } catch {
      return fail("\(check): key(named:as:) threw \(error)")
    }

    // Whether loads resume: without, what a save stored cannot be told (and is not retold).
    var loads = true
    switch await probeLoad(key, check) {
    case .resumed(.success(nil)): break
    case .released, .pending: loads = false
    case .resumed(let result):
      fail("\(check): a load with nothing stored must say so, not resume with \(describe(result))")
    }

    for (index, sample) in samples.enumerated() {
      let context: SaveContext = index == samples.count - 1 ? .didSet : .userInitiated
      guard await probeSave(key, sample, context: context, check), loads else { continue }
      await expectStored(sample, in: key, savedWith: context, check)
    }

    guard let last = samples.last else { return }
    let holder = Shared(wrappedValue: samples[0], self.key(keyName, as: Value.self))
    await eventually(
      "\(check): a new holder of .registered(\"\(name(keyName))\") loads the saved value, not \(describe(holder.wrappedValue))"
    ) { holder.wrappedValue == last }
  }

  /// Loads `key` until it gives `value`; a save whose continuation resumed with success, yet
  /// whose value never loads back, was not made.
  private func expectStored<Value: Sendable & Equatable>(
    _ value: Value, in key: any SharedKey<Value>, savedWith context: SaveContext,
    _ check: String
  ) async {
    let clock = ContinuousClock()
    let end = clock.now.advanced(by: deadline)
    var last: Resumption<Value?>
    repeat {
      last = await probeLoad(key, check)
      if case .resumed(.success(let loaded?)) = last, loaded == value { return }
      guard case .resumed = last else { return }  // recorded by the probe
      do {
        try await Task.sleep(for: .milliseconds(5))
      } catch {
        return fail("\(check): cancelled")
      }
    } while clock.now < end
    guard case .resumed(let result) = last else { return }
    fail(
      """
      \(check): a save with context \(spelled(context)) was never made: its continuation resumed \
      saying it was saved, but a load gives \(describe(result)), not \(describe(value))
      """)
  }

  /// A short rendering: a 100 KB array is not spelled out.
  func describe(_ value: some Any) -> String {
    let text = String(describing: value)
    return text.count <= 80 ? text : "\(text.prefix(60))… (\(text.count) characters)"
  }

  func describe<Value>(_ result: Result<Value?, any Error>) -> String {
    switch result {
    case .success(nil): "nothing stored"
    case .success(let value?): describe(value)
    case .failure(let error): "an error, \(error)"
    }
  }
}

import Testing
import Tether

/// Transactions, for a strategy whose keys are `TransactionalKey`s.
extension Checks {
  struct Refused: Error {}

  func transactions() async throws {
    guard try directKey("transactions") is any TransactionalKey<Int> else { return }
    let counter = Shared(wrappedValue: 0, try key("transactions"))
    try await withThrowingTaskGroup(of: Void.self) { group in
      for task in 0..<20 {
        group.addTask {
          for _ in 0..<5 {
            if task.isMultiple(of: 2) {
              try await counter.transaction { $0 += 1 }
            } else {
              counter.withLock { $0 += 1 }
            }
          }
        }
      }
      try await group.waitForAll()
    }
    expect(
      counter.wrappedValue == 100,
      "transactions: 20 tasks × 5 transactions or withLock increments sum to 100, not \(counter.wrappedValue)"
    )
    do {
      try await counter.transaction { value in
        value = -1
        throw Refused()
      }
      fail("transactions: a throwing body's error comes back")
    } catch is Refused {
      expect(counter.wrappedValue == 100, "transactions: a throwing body changes nothing")
    }
    await TetherSystem.flush()
    try await counter.load()
    expect(
      counter.wrappedValue == 100,
      "transactions: the store holds their sum (100), not \(counter.wrappedValue)")
    guard let externalEdit else { return }
    try await externalEdit(name("transactions"), 40)
    let read = try await counter.transaction { value -> Int in
      value += 1
      return value
    }
    expect(
      read == 41, "transactions: one reads what is stored (40), not what is held; read \(read - 1)")
  }
}

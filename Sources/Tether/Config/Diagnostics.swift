/// Where config errors go: thrown at the first (bootstrap), or all collected (`tether check`).
package final class Diagnostics {
  /// Every error recorded so far, in file order of discovery.
  package private(set) var errors: [TetherError] = []
  private let collects: Bool

  /// `collecting: false` throws the first error; `true` records every one.
  package init(collecting: Bool = false) {
    self.collects = collecting
  }

  /// Reports `error`: thrown, or recorded to go on.
  package func record(_ error: TetherError) throws {
    guard collects else { throw error }
    errors.append(error)
  }

  /// Runs `step`, reporting the `TetherError` it throws; `failed` runs when it did.
  package func attempt(_ step: () throws -> Void, failed: () -> Void = {}) throws {
    do {
      try step()
    } catch let error as TetherError {
      failed()
      try record(error)
    }
  }
}

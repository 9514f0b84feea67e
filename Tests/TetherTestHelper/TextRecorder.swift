import Foundation
import Synchronization
import TetherFiles

/// The texts a watch delivers, for helpers that check what arrived and what must not have.
final class TextRecorder: Sendable {
  private let texts = Mutex<[String]>([])
  private let arrived = DispatchSemaphore(value: 0)
  private let awaited: String

  init(awaiting awaited: String) { self.awaited = awaited }

  func record(_ content: FileContent) {
    guard case .data(let data) = content else { return }
    let text = String(decoding: data, as: UTF8.self)
    texts.withLock { $0.append(text) }
    if text == awaited { arrived.signal() }
  }

  /// Waits up to 20 s for the awaited text; whether it came, how many deliveries, how many empty.
  func waitAndCount() -> Arrivals {
    let result = arrived.wait(timeout: .now() + 20)
    let seen = texts.withLock { $0 }
    return Arrivals(
      delivered: result == .success ? 1 : 0, deliveries: seen.count,
      empty: seen.filter(\.isEmpty).count)
  }
}

/// What a ``TextRecorder`` saw by the end of its wait.
struct Arrivals {
  /// 1 when the awaited text came, else 0.
  let delivered: Int
  /// Texts delivered, whatever they were.
  let deliveries: Int
  /// Empty texts delivered.
  let empty: Int
}

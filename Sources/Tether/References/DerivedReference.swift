/// A read-only value computed from a parent reference: `$count.read { $0 == 0 }`.
///
/// Nothing is cached: every read runs `body` on the parent's current value, so a read through
/// it is an Observation access of the parent, and a change of the parent is a change of it.
/// Like a projection, it holds the parent's reference as it was when derived: re-keying the
/// parent later does not move it.
final class DerivedReference<Root: Sendable, Member: Sendable>: Reference {
  private let base: any Reference<Root>
  private let body: @Sendable (Root) -> Member

  init(base: any Reference<Root>, body: @escaping @Sendable (Root) -> Member) {
    self.base = base
    self.body = body
  }

  var wrappedValue: Member { body(base.wrappedValue) }
  var isLoading: Bool { base.isLoading }
  var loadError: (any Error)? { base.loadError }
  func load() async throws { try await base.load() }

  func observe(_ observer: @escaping @Sendable (Member) -> Void) -> SharedSubscription {
    base.observe { [body] root in observer(body(root)) }
  }

  func tellObservationReplaced() { base.tellObservationReplaced() }

  /// The parent, then what `read` turns its value into: `.inMemory("count").read { (Int) -> Bool }`.
  var description: String { "\(base.description).read { (\(Root.self)) -> \(Member.self) }" }
}

public import Tether

extension SharedReaderKey {
  /// A value kept in memory for the life of the process (or of a `withBootstrap` scope).
  ///
  /// ```swift
  /// @Shared(.inMemory("count")) var count = 0
  /// ```
  public static func inMemory<Value>(_ name: String) -> Self where Self == InMemoryKey<Value> {
    InMemoryKey(name)
  }
}

/// A key whose value lives in memory: shared by every holder of the name in the current scope,
/// and kept after the last holder is released. A key value made in one `withBootstrap` scope and
/// held in another is the holder's scope's value of that name.
///
/// This is the smallest complete strategy: the model for an app's own.
public struct InMemoryKey<Value: Sendable>: SharedKey, CustomStringConvertible {
  /// The name the value is stored under.
  public let name: String
  private let cell: MemoryCell<Value>
  /// The scope the value lives in.
  @usableFromInline package let scopeID: TetherScope.ID

  init(_ name: String, in scope: TetherScope = .current) {
    self.name = name
    self.cell = scope.local(InMemoryStorage.self) { InMemoryStorage() }
      .cell(named: name, of: Value.self)
    self.scopeID = scope.id
  }

  /// The name and the scope the value lives in.
  public var id: InMemoryKeyID { InMemoryKeyID(name: name, cell: ObjectIdentifier(cell)) }

  /// `.inMemory("name")`.
  public var description: String { ".inMemory(\(String(reflecting: name)))" }

  /// Resumes with the stored value; the first holder's default is stored when there is none.
  public func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    if let value = cell.value() {
      continuation.resume(returning: value)
    } else if let initialValue = context.initialValue {
      cell.store(initialValue)
      continuation.resumeReturningInitialValue()
    } else {
      continuation.resumeReturningInitialValue()
    }
  }

  /// Nothing changes an in-memory value except its shared reference, so there is nothing to
  /// deliver.
  public func subscribe(
    context: LoadContext<Value>, subscriber: SharedSubscriber<Value>
  ) -> SharedSubscription {
    // Storing in memory cannot fail: there is no outcome to tell.
    subscriber.storeChangesInline(from: self, in: cell)
    return SharedSubscription {}
  }

  /// Stores the value.
  public func save(_ value: Value, context: SaveContext, continuation: SaveContinuation) {
    cell.store(value)
    continuation.resume()
  }
}

extension InMemoryKey: TransactionalKey {
  /// Changes the stored value in place. Nothing else stores it: the value's own lock, which
  /// `Shared.transaction` holds other changes back with, is the only lock there is.
  public func transaction(
    context: LoadContext<Value>, update: (inout Value) throws -> Void,
    stored: (Value) -> Void
  ) throws {
    guard var value = cell.value() ?? context.initialValue else {
      throw TetherError.noValue(key: description)
    }
    try update(&value)
    cell.store(value)
    stored(value)
  }
}

extension InMemoryKey: ResettableKey {
  /// Empties the value's cell. The value's own lock, which `Shared.reset` holds other changes
  /// back with, is again the only lock there is, and nothing can be pending: a save stores at
  /// once.
  public func reset(stored: (Value?) -> Void) throws {
    cell.clear()
    stored(nil)
  }
}

extension InMemoryKey: ScopeBoundKey {
  /// The value of the same name in `scope`: a holder in another scope than the key's uses its
  /// own scope's value.
  @usableFromInline package func rebound(to scope: TetherScope) -> Self { Self(name, in: scope) }
}

/// Identifies an in-memory value: its name, its type and the scope it lives in.
public struct InMemoryKeyID: Hashable, Sendable {
  let name: String
  let cell: ObjectIdentifier
}

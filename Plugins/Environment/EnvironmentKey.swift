public import Tether

extension SharedReaderKey {
  /// The environment variable `variable`, read as `V` with the literal forms a defaults file
  /// uses (see ``EnvironmentStrategy``).
  ///
  /// ```swift
  /// @SharedReader(.environment("NOTES_PAGE_SIZE")) var pageSize = 20
  /// ```
  ///
  /// A type no literal holds gives the default and `loadError` `TetherError.unsupportedType`.
  public static func environment<V>(_ variable: String) -> Self where Self == EnvironmentKey<V> {
    EnvironmentKey(variable: variable, key: variable)
  }
}

/// A key that reads one environment variable: see ``EnvironmentStrategy``.
///
/// It only reads: a process's environment does not change from outside it, so its subscription
/// delivers nothing, and it has no `save`.
public struct EnvironmentKey<Value: Sendable>: SharedReaderKey, CustomStringConvertible {
  /// The variable read, `NOTES_UI_THEME`.
  public let variable: String
  /// The key name errors name: the registered name, or the variable for a direct key.
  let key: String
  private let coding: Result<LiteralCoding<Value>, TetherError>

  init(variable: String, key: String) {
    self.variable = variable
    self.key = key
    self.coding = Self.coding(for: key)
  }

  /// How `Value` is read, or `unsupportedType` naming `key`.
  static func coding(for key: String) -> Result<LiteralCoding<Value>, TetherError> {
    guard let coding = LiteralCoding<Value>.make() else {
      return .failure(.unsupportedType("\(Value.self)", key: key, kind: EnvironmentStrategy.kind))
    }
    return .success(coding)
  }

  /// The variable: keys of one variable are one reference (per value type).
  public var id: EnvironmentKeyID { EnvironmentKeyID(variable: variable) }

  /// `.environment("NOTES_UI_THEME")`.
  public var description: String { ".environment(\(String(reflecting: variable)))" }

  /// The variable's value; the default when it is unset; an error naming the variable when its
  /// text is not a `Value`.
  public func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    do {
      guard let value = try read() else { return continuation.resumeReturningInitialValue() }
      continuation.resume(returning: value)
    } catch {
      continuation.resume(throwing: error)
    }
  }

  /// Delivers nothing: no other process can change this process's environment.
  public func subscribe(
    context: LoadContext<Value>, subscriber: SharedSubscriber<Value>
  ) -> SharedSubscription {
    SharedSubscription {}
  }

  /// The value, `nil` when the variable is unset.
  func read() throws(TetherError) -> Value? {
    let coding = try coding.get()
    guard let text = EnvironmentVariables.value(of: variable) else { return nil }
    do {
      return try coding.decode(text.isEmpty ? .empty : .text(text))
    } catch {
      throw .invalidValue(
        key: key, message: error.message, location: "environment variable \(variable)")
    }
  }
}

/// Identifies an ``EnvironmentKey``: its variable.
public struct EnvironmentKeyID: Hashable, Sendable {
  let variable: String
}

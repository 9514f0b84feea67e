public import Tether
import TetherFiles
import TetherWatcher

extension SharedReaderKey {
  /// A small typed value in an INI defaults file: the Linux answer to `@AppStorage`.
  ///
  /// ```swift
  /// @Shared(.defaults("count")) var count = 0
  /// @Shared(.defaults("ui.theme")) var theme = Theme.light   // `theme = dark` under [ui]
  /// ```
  ///
  /// `V` may be `Bool`, any fixed-width integer, `Double`, `Float`, `String`, `URL`, `Date`,
  /// `Data`, `UUID`, a `RawRepresentable` over one of those, an `Optional` of any of them, or an
  /// array of them. Any other type is reported as `TetherError.unsupportedType` in `loadError`
  /// when the key is used.
  ///
  /// An `Optional`'s `nil` is written as the line `name =`, with nothing after the `=`: no value
  /// of any type is written that way (the empty text is `name = ""`), so `nil` reads back as
  /// `nil` whatever the key's default is. A key with no line at all shows its default.
  ///
  /// A `Date` is written in RFC 3339 UTC with the fractional digits that read back as the very
  /// same `Date`; one outside the years 0000-9999, which RFC 3339 cannot write, is a save error.
  public static func defaults<V>(
    _ name: String, store: DefaultsStore = .standard
  ) -> Self where Self == DefaultsKey<V> {
    DefaultsKey(name, store: store, throttle: .seconds(1))
  }
}

/// A key stored in a ``DefaultsStore``: see ``Tether/SharedReaderKey/defaults(_:store:)``.
public struct DefaultsKey<Value: Sendable>: SharedKey, CustomStringConvertible {
  /// The key's name; `ui.theme` is `theme` under `[ui]`.
  public let name: String
  /// Where the value is stored.
  public let store: DefaultsStore
  private let file: DefaultsFile
  private let coding: Result<LiteralCoding<Value>, TetherError>

  init(_ name: String, store: DefaultsStore, throttle: Duration) {
    self.name = name
    self.store = store
    self.file = DefaultsFiles.current.file(for: store, throttle: throttle)
    self.coding = Self.coding(for: name, in: store)
  }

  /// Whether `Value` can be stored under `name`, and how.
  static func coding(
    for name: String, in store: DefaultsStore
  ) -> Result<LiteralCoding<Value>, TetherError> {
    do {
      try KeyName.validate(name)
    } catch {
      return .failure(error)
    }
    guard let coding = LiteralCoding<Value>.make() else {
      return .failure(.unsupportedType("\(Value.self)", key: name, kind: DefaultsStrategy.kind))
    }
    return .success(coding)
  }

  /// The file's resolved path and the name.
  public var id: DefaultsKeyID { DefaultsKeyID(path: store.path, name: name) }

  /// `.defaults("name")`, with its file when it is not the standard one.
  public var description: String {
    store == .standard
      ? ".defaults(\(String(reflecting: name)))"
      : ".defaults(\(String(reflecting: name)), store: \(store.file.path))"
  }

  /// Reads the user file, then the registration file; nothing stored is "no value". A line
  /// that does not parse gives way to the next layer that does (the registration file's line,
  /// then the default), with `loadError` naming the key, the file and the line.
  public func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    switch reading(file.load(name)) {
    case .value(let value): continuation.resume(returning: value)
    case .absent: continuation.resumeReturningInitialValue()
    case .fellBack(let value, let error): continuation.resume(fallingBackTo: value, error: error)
    case .failed(let error): continuation.resume(throwing: error)
    }
  }

  /// Delivers changes of this key's line, in either file, made outside this process's holders.
  public func subscribe(
    context: LoadContext<Value>, subscriber: SharedSubscriber<Value>
  ) -> SharedSubscription {
    guard case .success = coding else { return SharedSubscription {} }
    let file = file
    let inline = file.inlineKey(name)
    let latest = LatestChange<Value, INIValue>(key: name, serial: inline.given) {
      try literal(for: $0)
    }
    // A `withLock` change goes to the file's throttled writer as it is, encoded when it is
    // written; in a burst, it takes the place of the waiting change's value. Its outcome, a
    // value that has no literal included, reaches the holders through their subscriptions.
    subscriber.takeChangesInline(from: self) { value in
      if !latest.update(value) { file.saveInline(value, through: latest, to: inline) }
      return true
    }
    return file.subscribe(name, saved: { subscriber.yieldSaveResult(naming($0)) }) {
      lookup, seen in
      let read = reading(lookup)  // Decoded before the holders' changes wait.
      subscriber.give(
        { subscriber in
          switch read {
          case .value(let value): subscriber.yield(value)
          case .absent: subscriber.yieldReturningInitialValue()
          // A hand edit that does not parse: the next layer's value, and the error naming
          // the line, as one change.
          case .fellBack(let value, let error):
            subscriber.yield(fallingBackTo: value, error: error)
          case .failed(let error): subscriber.yield(throwing: error)
          }
        }, seen: seen)
    }
  }

  /// Writes the value's line (`name =` for an `Optional`'s `nil`): throttled after `withLock`,
  /// at once for `save()`.
  public func save(_ value: Value, context: SaveContext, continuation: SaveContinuation) {
    let literal: INIValue
    do {
      literal = try self.literal(for: value)
    } catch {
      return continuation.resume(throwing: error)
    }
    file.save(
      name, literal: literal, immediately: context == .userInitiated,
      waiter: WriteWaiter(
        group: continuation.target, part: name,
        completion: { continuation.resume(with: naming($0)) },
        superseded: { continuation.resumeSuperseded() }),
      onCaller: continuation.runOnCaller)
  }

  /// The outcome of writing the file, its failure said of this key: the path alone does not
  /// tell which of the file's keys was not saved.
  private func naming(_ result: Result<Void, any Error>) -> Result<Void, any Error> {
    result.mapError { error in
      if let error = error as? TetherError, error.key != nil { return error }
      return TetherError.notSaved(key: name, reason: "\(error)")
    }
  }

  /// The literal that stores `value`, or the error naming the key and its file.
  private func literal(for value: Value) throws -> INIValue {
    do {
      return try coding.get().encode(value)
    } catch let error as InvalidLiteral {
      throw TetherError.invalidValue(key: name, message: error.message, location: store.file.path)
    }
  }

  /// What the key's holders show for `lookup`.
  private enum Reading {
    /// A line's value.
    case value(Value)
    /// No line anywhere: the default.
    case absent
    /// A line that does not parse (the first such), and what stands in for it: a later
    /// layer's value, or the default (`nil`).
    case fellBack(Value?, TetherError)
    /// Nothing can be said (the key's type cannot be stored, the user file cannot be read):
    /// holders keep their value.
    case failed(any Error)
  }

  /// The layers in order — the user's line, the registration file's, the default — the first
  /// that parses winning, and the error of any line before it.
  private func reading(_ lookup: DefaultsFile.Lookup) -> Reading {
    let coding: LiteralCoding<Value>
    switch self.coding {
    case .success(let found): coding = found
    case .failure(let error): return .failed(error)
    }
    var firstError: TetherError?
    let layers = [
      (lookup.user, file.path), (lookup.registration, file.registrationPath ?? file.path),
    ]
    for (found, path) in layers {
      switch found {
      case .absent: continue
      case .unreadable(let error) where error.isInvalidValue: firstError = firstError ?? error
      case .unreadable(let error): return .failed(error)
      case .value(let literal, let line):
        do {
          let value = try coding.decode(literal)
          return firstError.map { .fellBack(value, $0) } ?? .value(value)
        } catch {
          firstError =
            firstError
            ?? .invalidValue(
              key: name, message: error.message, location: "\(path):\(line)")
        }
      }
    }
    return firstError.map { .fellBack(nil, $0) } ?? .absent
  }
}

extension DefaultsKey: TransactionalKey {
  /// Reads, changes and writes this key's line under the file's lock (the one every write of
  /// the file takes), leaving every other line as it is.
  ///
  /// The value read follows the lookup order (the user's line, the registration file's, the
  /// default); a line that does not parse throws its error and nothing is written.
  public func transaction(
    context: LoadContext<Value>, update: (inout Value) throws -> Void,
    stored: (Value) -> Void
  ) throws {
    _ = try coding.get()
    try file.transaction(
      name,
      read: { lookup in
        switch reading(lookup) {
        case .value(let value): return value
        case .absent: return nil
        case .fellBack(_, let error): throw error
        case .failed(let error): throw error
        }
      },
      literal: { try self.literal(for: $0) },
      context: context, update: update, stored: stored)
  }
}

extension DefaultsKey: ResettableKey {
  /// Removes this key's line from the user file under the file's lock (the one every write of
  /// the file takes), once this process's pending changes are written; every other line, comment
  /// and blank stays byte for byte. Holders then show the registration file's value, if it has
  /// one, else their default. A missing user file is success, and nothing is made for it.
  public func reset(stored: (Value?) -> Void) throws {
    _ = try coding.get()
    try file.reset(name) { lookup in
      switch reading(lookup) {
      case .value(let value): stored(value)
      // What a load shows: the layer that parses, else the default.
      case .fellBack(let value, _): stored(value)
      case .absent, .failed: stored(nil)
      }
    }
  }
}

/// Identifies a defaults value: its file's resolved path and its name.
public struct DefaultsKeyID: Hashable, Sendable {
  let path: String
  let name: String
}

extension TetherError {
  fileprivate var isInvalidValue: Bool {
    if case .invalidValue = self { return true }
    return false
  }
}

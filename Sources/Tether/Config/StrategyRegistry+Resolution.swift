import Logging

extension StrategyRegistry {
  /// The key that stores `name` as `Value`, made once per name and type and then reused.
  ///
  /// A name has one value type in a registry: its declared type, or else the first type it
  /// resolved as. Any other type fails with ``TetherError/typeConflict(key:type:existing:)``,
  /// so two holders of one name never keep two values that never meet.
  package func key<Value: Sendable>(
    named name: String, as type: Value.Type
  ) -> Result<any SharedKey<Value>, TetherError> {
    typealias Outcome = Result<any SharedKey<Value>, TetherError>
    let slot = Resolutions.Slot(name: name, type: ObjectIdentifier(type))
    let (cached, conflict) = resolutions.withLock { state in
      (state.keys[slot] as? Outcome, state.conflict(name, as: type))
    }
    if let cached { return cached }
    // A conflicting type is never handed to the strategy.
    let result: Outcome =
      conflict.map { .failure($0) }
      ?? Result { () throws(TetherError) in try resolve(name, as: type) }
    let (published, isOurs) = resolutions.withLock { state -> (Outcome, Bool) in
      if let raced = state.keys[slot] as? Outcome { return (raced, false) }
      var outcome = result
      if case .success = result {
        // Another type may have resolved first while this one was being made.
        if let conflict = state.conflict(name, as: type) {
          outcome = .failure(conflict)
        } else if state.types[name] == nil {
          state.types[name] = Resolutions.ValueType(type, "first used as that")
        }
      }
      state.keys[slot] = outcome
      return (outcome, true)
    }
    if case .failure(let error) = published, isOurs {
      // `unsupportedType` has no location of its own: the log names the mapping's line.
      let mapped = mapping.rule(for: name).map { " (mapped at \(origin):\($0.line))" } ?? ""
      Logger.tether.error("cannot resolve key \"\(name)\"\(mapped): \(error)")
    }
    return published
  }

  private func resolve<Value: Sendable>(
    _ name: String, as type: Value.Type
  ) throws(TetherError) -> any SharedKey<Value> {
    // Checked before the mapping: a name no config line could map (a pattern would) is a
    // mistake in code, and every strategy may rely on getting valid names only.
    try KeyName.validate(name)
    guard let rule = mapping.rule(for: name) else { throw .unmappedKey(name, origin: origin) }
    if let foreign = foreign[rule.strategy] {
      throw .foreignStrategy(key: name, kind: foreign.kind, location: "\(origin):\(rule.line)")
    }
    // Only a registry made to diagnose a config lacks a strategy its rules name.
    guard let instance = instances[rule.strategy] else { throw .unmappedKey(name, origin: origin) }
    let options = keyOptions[name] ?? StrategyOptions(entries: [], origin: origin)
    let key: any SharedKey<Value>
    do {
      // A read-only strategy's key reads; every write through it throws `readOnly`.
      if let readOnly = instance.strategy as? any ReadOnlyPersistenceStrategy {
        key = ReadOnlyKey(
          try readOnly.readerKey(named: name, as: type, options: options), name: name,
          kind: instance.kind)
      } else {
        key = try instance.strategy.key(named: name, as: type, options: options)
      }
    } catch let error as TetherError {
      throw error
    } catch {
      throw .invalidConfiguration(
        message: "strategy \"\(instance.name)\" cannot store key \"\(name)\": \(error)",
        location: "\(origin):\(rule.line)")
    }
    if let unknown = options.unread.first {
      throw ConfigLoader.unknownOption(unknown, in: "key.\(name)", options)
    }
    return key
  }
}

/// What a registry has resolved: each key by name and value type, and the one value type of
/// each name.
struct Resolutions {
  struct Slot: Hashable {
    let name: String
    let type: ObjectIdentifier
  }

  /// A name's value type, and how it came to be it, for a conflict's message.
  struct ValueType {
    let type: ObjectIdentifier
    /// `Int (declared at Keys.swift:4)`, `Int (first used as that)`.
    let described: String

    init(_ type: Any.Type, _ how: String) {
      self.type = ObjectIdentifier(type)
      self.described = "\(TypeName.of(type)) (\(how))"
    }
  }

  /// `Result<any SharedKey<Value>, TetherError>` by name and `Value`.
  var keys: [Slot: any Sendable] = [:]
  var types: [String: ValueType] = [:]

  /// Declared names have their declared type from the start (the first, if one is declared
  /// twice: that is reported at startup).
  init(declaring declarations: [KeyDeclaration]) {
    for declaration in declarations where types[declaration.name] == nil {
      types[declaration.name] = ValueType(
        declaration.typed.valueType, "declared at \(declaration.location)")
    }
  }

  /// Why `name` cannot be used as `type`, or `nil` when it can.
  func conflict(_ name: String, as type: Any.Type) -> TetherError? {
    guard let existing = types[name], existing.type != ObjectIdentifier(type) else { return nil }
    return .typeConflict(key: name, type: TypeName.of(type), existing: existing.described)
  }
}

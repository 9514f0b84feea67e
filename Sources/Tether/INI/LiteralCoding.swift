import Foundation

/// How values of one type are written as and read from one-line text literals (`true`, `42`,
/// `0.5`, `https://…`, `[1, 2]`), found once per key from the type itself: a ``LiteralScalar``,
/// a `RawRepresentable` over one, an `Optional` of any of these, or an array of scalars
/// (one-line JSON). The defaults strategy stores values this way, and the environment strategy
/// reads variables this way: one codec, so a value reads the same wherever it is written.
///
/// An `Optional`'s `nil` is `.empty` (a defaults line `name =`, an empty variable): no text is
/// written that way (the empty text is `name = ""`), so `nil` reads back as `nil` whatever the
/// key's default, while a missing entry shows its default. Read as any other type, `.empty` is
/// the empty text.
package struct LiteralCoding<Value>: Sendable {
  /// The literal for a value.
  package let encode: @Sendable (Value) throws(InvalidLiteral) -> INIValue
  /// The value of a literal.
  package let decode: @Sendable (INIValue) throws(InvalidLiteral) -> Value

  /// The coding for `Value`, or `nil` when no literal can hold it.
  package static func make() -> Self? {
    guard let erased = ErasedCoding.make(for: Value.self) else { return nil }
    return Self(
      encode: { value throws(InvalidLiteral) in try erased.encode(value) },
      decode: { literal throws(InvalidLiteral) in
        guard let value = try erased.decode(literal) as? Value else {
          throw InvalidLiteral(message: "cannot be read as \(Value.self)")
        }
        return value
      })
  }
}

/// A coding over `Any`, so optionals, raw values and arrays can be built from their parts.
private struct ErasedCoding: Sendable {
  let encode: @Sendable (Any) throws(InvalidLiteral) -> INIValue
  let decode: @Sendable (INIValue) throws(InvalidLiteral) -> Any
  /// How an element is written inside a JSON array: text is quoted.
  let isText: Bool

  static func make(for type: Any.Type) -> ErasedCoding? {
    if let optional = type as? any OptionalValue.Type {
      return make(for: optional.wrappedType).map { optionalCoding($0, optional) }
    }
    if let array = type as? any ArrayValue.Type {
      // Elements are scalars or raw values: an array has no way to write nil or nesting.
      guard !(array.elementType is any OptionalValue.Type),
        !(array.elementType is any ArrayValue.Type)
      else { return nil }
      return make(for: array.elementType).map { arrayCoding($0, array) }
    }
    if let scalar = type as? any LiteralScalar.Type { return scalarCoding(scalar) }
    if let raw = type as? any (RawRepresentable & Sendable).Type { return rawCoding(raw) }
    return nil
  }

  private static func scalarCoding<S: LiteralScalar>(_: S.Type) -> ErasedCoding {
    ErasedCoding(
      encode: { value throws(InvalidLiteral) in
        guard let scalar = value as? S else { throw InvalidLiteral(message: "not a \(S.self)") }
        return .text(try scalar.literal)
      },
      decode: { literal throws(InvalidLiteral) in
        switch literal {
        case .text(let text): return try S.value(of: text)
        // Someone wrote `name =` for a key that is not optional: the empty text, as ever.
        case .empty: return try S.value(of: "")
        }
      },
      isText: S.isText)
  }

  private static func rawCoding<R: RawRepresentable & Sendable>(_: R.Type) -> ErasedCoding? {
    guard let raw = make(for: R.RawValue.self), !(R.RawValue.self is any OptionalValue.Type)
    else { return nil }
    return ErasedCoding(
      encode: { value throws(InvalidLiteral) in
        guard let value = value as? R else { throw InvalidLiteral(message: "not a \(R.self)") }
        return try raw.encode(value.rawValue)
      },
      decode: { literal throws(InvalidLiteral) in
        guard let rawValue = try raw.decode(literal) as? R.RawValue,
          let value = R(rawValue: rawValue)
        else { throw InvalidLiteral(message: "\"\(literal)\" is not a \(R.self)") }
        return value
      },
      isText: raw.isText)
  }

  private static func optionalCoding(
    _ wrapped: ErasedCoding, _ optional: any OptionalValue.Type
  ) -> ErasedCoding {
    ErasedCoding(
      encode: { value throws(InvalidLiteral) in
        guard let unwrapped = (value as? any OptionalValue)?.unwrapped else { return .empty }
        return try wrapped.encode(unwrapped)
      },
      decode: { literal throws(InvalidLiteral) in
        literal == .empty ? optional.nilValue : try wrapped.decode(literal)
      },
      isText: wrapped.isText)
  }

  private static func arrayCoding(
    _ element: ErasedCoding, _ array: any ArrayValue.Type
  ) -> ErasedCoding {
    ErasedCoding(
      encode: { value throws(InvalidLiteral) in
        guard let items = (value as? any ArrayValue)?.elements else {
          throw InvalidLiteral(message: "not an array")
        }
        var literals: [String] = []
        for item in items {
          guard case .text(let literal) = try element.encode(item) else {
            throw InvalidLiteral(message: "an array element has no value")
          }
          literals.append(literal)
        }
        return .text(JSONArray.literal(literals, quoted: element.isText))
      },
      decode: { literal throws(InvalidLiteral) in
        guard case .text(let text) = literal else {
          throw InvalidLiteral(message: "expected a one-line JSON array such as [1, 2], found \"\"")
        }
        var items: [Any] = []
        for token in try JSONArray.elements(of: text) {
          items.append(try element.decode(.text(token)))
        }
        guard let typed = array.make(from: items) else {
          throw InvalidLiteral(message: "an element is not a \(array.elementType)")
        }
        return typed
      },
      isText: false)
  }
}

/// `Optional`, seen through `Any`.
private protocol OptionalValue: SendableMetatype {
  static var wrappedType: Any.Type { get }
  /// `nil` of this very type, so that it is cast back to the key's type as it is.
  static var nilValue: Any { get }
  var unwrapped: Any? { get }
}

extension Optional: OptionalValue {
  static var wrappedType: Any.Type { Wrapped.self }
  static var nilValue: Any { Wrapped?.none as Any }
  var unwrapped: Any? { self.map { $0 } }
}

/// `Array`, seen through `Any`.
private protocol ArrayValue: SendableMetatype {
  static var elementType: Any.Type { get }
  static func make(from elements: [Any]) -> Any?
  var elements: [Any] { get }
}

extension Array: ArrayValue {
  static var elementType: Any.Type { Element.self }

  static func make(from elements: [Any]) -> Any? {
    var typed: [Element] = []
    for element in elements {
      guard let element = element as? Element else { return nil }
      typed.append(element)
    }
    return typed
  }

  var elements: [Any] { map { $0 } }
}

public import Foundation

/// A value waiting to be written, with the encoder it is written with.
///
/// Not generic: a generic change type would make every save look up the writer's type metadata
/// at run time. The value is erased rather than captured by an encoding closure: a value of up
/// to three words fits in the existential, where the closure's context takes an allocation per
/// save.
struct PendingFileChange: Sendable {
  let value: any Sendable
  let encoder: any ErasedFileEncoder

  func encode() throws -> Data {
    try encoder.encode(erased: value)
  }
}

/// What encodes a pending change's erased value.
protocol ErasedFileEncoder: AnyObject, Sendable {
  func encode(erased value: any Sendable) throws -> Data
}

/// A key's encoding and decoding, made once per key so that each save hands it on with one
/// retain.
@usableFromInline
final class FileCoder<Value: Sendable>: ErasedFileEncoder {
  let encode: @Sendable (Value) throws -> Data
  let decode: @Sendable (Data) throws -> Value

  // Usable from inlined code: a key's coders made in the caller, specialized for its value
  // type, have their class's metadata at hand; made in the key's unspecialized code, it would
  // be looked up at run time for each key.
  @usableFromInline
  init(
    encode: @escaping @Sendable (Value) throws -> Data,
    decode: @escaping @Sendable (Data) throws -> Value
  ) {
    self.encode = encode
    self.decode = decode
  }

  /// A change of a key of `Value`s pairs this encoder with a `Value` only, so the cast holds.
  func encode(erased value: any Sendable) throws -> Data {
    try encode(value as! Value)
  }

  /// A change that encodes `value` with this encoder when it is written.
  func change(_ value: Value) -> PendingFileChange {
    PendingFileChange(value: value, encoder: self)
  }
}

public import Foundation
import Tether

/// A change waiting to be written: its value, and its number.
///
/// Not generic: a generic change type would make every save look up the writer's type metadata
/// at run time.
struct PendingFileChange: Sendable {
  private(set) var value: NewValue
  /// Numbered by the store as the change is made (see ``FileStore``): of two changes, the one
  /// numbered last is written, whichever was submitted last.
  let serial: UInt64

  /// What is written.
  enum NewValue: Sendable {
    /// A value `save()` gave, with its key's encoder. Erased rather than captured by an
    /// encoding closure: a value of up to three words fits in the existential, where the
    /// closure's context takes an allocation per save.
    case given(any Sendable, any ErasedFileEncoder)
    /// The holders' latest value given through `withLock`, while the change is pending.
    case latest(any LatestValue<Data>)
    /// That value, as the writer took it.
    case taken(@Sendable () throws -> Data)
  }

  func encode() throws -> Data {
    switch value {
    case .given(let value, let encoder): return try encoder.encode(erased: value)
    case .latest(let latest): return try latest.take()()
    case .taken(let encode): return try encode()
    }
  }

  /// Takes the holders' latest value this change reads, if it reads one (see
  /// ``LatestChange``): the writer has taken the change.
  mutating func take() {
    if case .latest(let latest) = value { value = .taken(latest.take()) }
  }

  /// Folds `newer` into `older`: the one numbered last stays. Two threads can number their
  /// changes in one order and submit them in the other, and only the change numbered last
  /// can be the one a ``LatestChange`` is open for.
  static func merge(_ older: inout PendingFileChange, _ newer: PendingFileChange) {
    if newer.serial > older.serial { older = newer }
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

  /// A change numbered `serial` that encodes `value` with this encoder when it is written.
  func change(_ value: Value, serial: UInt64) -> PendingFileChange {
    PendingFileChange(value: .given(value, self), serial: serial)
  }
}

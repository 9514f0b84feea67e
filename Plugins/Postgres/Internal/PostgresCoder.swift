import Foundation
import Tether

/// A key's JSON: what cannot be encoded or decoded is said of the key, by name, and of its
/// table.
struct PostgresCoder<Value: Sendable>: Sendable {
  let key: String
  let location: String

  private static var encoder: JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return encoder
  }

  func encode(_ value: Value) throws -> String {
    guard let encodable = value as? any Encodable else {
      throw TetherError.unsupportedType("\(Value.self)", key: key, kind: PostgresStrategy.kind)
    }
    do {
      return String(decoding: try Self.encoder.encode(encodable), as: UTF8.self)
    } catch {
      throw TetherError.invalidValue(
        key: key, message: "cannot be written as JSON: \(CodingErrors.describe(error))",
        location: location)
    }
  }

  func decode(_ json: String) throws -> Value {
    guard let type = Value.self as? any Decodable.Type else {
      throw TetherError.unsupportedType("\(Value.self)", key: key, kind: PostgresStrategy.kind)
    }
    do {
      guard let value = try JSONDecoder().decode(type, from: Data(json.utf8)) as? Value else {
        throw DecodingError.typeMismatch(
          Value.self, .init(codingPath: [], debugDescription: "not a \(Value.self)"))
      }
      return value
    } catch {
      throw TetherError.invalidValue(
        key: key,
        message: "the stored \(json.prefix(80)) cannot be read as \(Value.self): "
          + CodingErrors.describe(error),
        location: location)
    }
  }
}

import Foundation

/// Coding errors in words, for the messages of strategies that store JSON.
package enum CodingErrors {
  /// A coding error in words: where in the value, and what went wrong, without the nested
  /// context dump `DecodingError`'s own description prints.
  package static func describe(_ error: any Error) -> String {
    func at(_ path: [any CodingKey]) -> String {
      guard !path.isEmpty else { return "" }
      let dotted = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
      return "at \(dotted.hasPrefix(".") ? String(dotted.dropFirst()) : dotted): "
    }
    switch error {
    case DecodingError.dataCorrupted(let context):
      let underlying = (context.underlyingError as? NSError)?.userInfo["NSDebugDescription"]
      return at(context.codingPath) + context.debugDescription
        + (underlying.map { " (\($0))" } ?? "")
    case DecodingError.keyNotFound(let key, let context):
      return at(context.codingPath) + "no value for \"\(key.stringValue)\""
    case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
      return at(context.codingPath) + context.debugDescription
    case EncodingError.invalidValue(_, let context):
      return at(context.codingPath) + context.debugDescription
    default:
      return "\(error)"
    }
  }
}

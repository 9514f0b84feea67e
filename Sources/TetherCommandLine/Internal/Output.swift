import Foundation
import Tether

/// What the tool prints: unbuffered (other programs read `watch` and the demo live), values on
/// standard output, errors on standard error.
enum Output {
  /// Writes `text` to standard output now.
  static func write(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
  }

  /// Writes `line` and a newline to standard output now.
  static func line(_ line: String) {
    write(line + "\n")
  }

  /// Writes `message` and a newline to standard error.
  static func error(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
  }

  /// The bytes of the file at `path`, or of standard input for `-`; a file that cannot be read
  /// ends the command, said as `what` cannot be read from it.
  static func input(_ path: String, as what: String) throws -> Data {
    guard path != "-" else { return FileHandle.standardInput.readDataToEndOfFile() }
    do {
      return try UserFile.read(path, as: what)
    } catch {
      throw fail("\(error)")
    }
  }

  /// One JSON object on one line (NDJSON), keys sorted so output is stable.
  static func json(_ object: [String: Any]) {
    line(jsonText(object))
  }

  /// `object` as one line of JSON.
  static func jsonText(_ object: Any) -> String {
    do {
      return try StoredText.json(object)
    } catch {
      // Everything given is built from strings, numbers and parsed JSON.
      return #"{"error":"\#(error)"}"#
    }
  }
}

/// A failure the tool has already explained: the command ends with exit status 1.
struct Failed: Error {
  /// Says `message` on standard error and makes the error that ends the command.
  static func saying(_ message: String) -> Failed {
    Output.error(message)
    return Failed()
  }
}

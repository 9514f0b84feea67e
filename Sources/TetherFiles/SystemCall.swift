import Glibc

/// A failed system call: which call, on what, and `errno`.
package struct SystemError: Error, Equatable, CustomStringConvertible {
  package let call: String
  package let path: String?
  package let code: Int32

  package init(call: String, path: String? = nil, code: Int32) {
    self.call = call
    self.path = path
    self.code = code
  }

  package var description: String {
    let what = path.map { " \($0)" } ?? ""
    return "\(call)\(what): \(String(cString: strerror(code))) (errno \(code))"
  }
}

/// Runs a system call, retrying it while it fails with `EINTR`, and turns any other failure
/// (`-1`) into a ``SystemError``. Every system call in TetherWatcher goes through here.
@discardableResult
package func systemCall<Result: BinaryInteger>(
  _ name: String, path: String? = nil, _ call: () -> Result
) throws(SystemError) -> Result {
  while true {
    let result = call()
    if result != -1 { return result }
    let code = errno
    if code != EINTR { throw SystemError(call: name, path: path, code: code) }
  }
}

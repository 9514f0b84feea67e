/// What the defaults plugin keeps in the current scope (a `withBootstrap`'s, or the process's),
/// for tests and diagnostics.
///
/// ```swift
/// @_spi(Benchmarking) import TetherDefaults
/// print(DefaultsProbe.openFiles)  // one per defaults file a live key reads
/// ```
@_spi(Benchmarking)
public enum DefaultsProbe {
  /// The defaults files the current scope keeps open: one per file that a live key reads, and
  /// none for files whose keys have all gone.
  public static var openFiles: Int { DefaultsFiles.current.count }

  /// The current scope's defaults files, as an object: a test holds it weakly to check that
  /// they, and every file engine they made (each keeps them), go with their scope.
  package static var scopeFiles: AnyObject { DefaultsFiles.current }

  /// The states of the defaults files the current scope keeps open (their parsed lines, holders
  /// and writes), as objects: a test holds them weakly to check that they go with their files.
  package static var fileStates: [AnyObject] { DefaultsFiles.current.states }
}

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
}

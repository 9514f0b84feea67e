/// What file storage keeps in the current scope (a `withBootstrap`'s, or the process's), for
/// tests and diagnostics.
///
/// ```swift
/// @_spi(Benchmarking) import TetherFileStorage
/// print(FileStorageProbe.openStores)  // one per file and value type a key holds open
/// ```
@_spi(Benchmarking)
public enum FileStorageProbe {
  /// The file stores the current scope keeps: one per path and value type that a live key
  /// holds, and none for keys that have gone.
  public static var openStores: Int { FileStores.current.slots }

  /// The current scope's stores, as an object: a test holds it weakly to check that the stores,
  /// and every store they made (each keeps them), go with their scope.
  package static var scopeStores: AnyObject { FileStores.current }

  /// The states of the stores the current scope keeps (what each knows of its file, its
  /// holders), as objects: a test holds them weakly to check that they go with their stores.
  package static var storeStates: [AnyObject] { FileStores.current.states }
}

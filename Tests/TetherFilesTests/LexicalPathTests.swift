import Foundation
import Testing
import TetherFiles
import TetherTesting

@Suite struct LexicalPathTests {
  @Test(arguments: [
    ("/a//b/./c/../d/", "/a/b/d"),
    ("/", "/"),
    ("//", "/"),
    ("/..", "/"),
    ("/a/../../b", "/b"),
    ("a/../../b", "../b"),
    ("./", "."),
    ("/tmp/a b/%20.json", "/tmp/a b/%20.json"),
    ("/a/b", "/a/b"),
    ("/a/.", "/a"),
    ("/a/..", "/"),
    ("/a/./b", "/a/b"),
    ("/a/../b", "/b"),
    ("/a/", "/a"),
    ("/a/...", "/a/..."),
    ("/.hidden/..b/c..", "/.hidden/..b/c.."),
  ])
  func normalizesLikeFoundation(path: String, expected: String) {
    #expect(LexicalPath.normalized(path) == expected)
    if path.hasPrefix("/") {
      #expect(URL(filePath: path).standardizedFileURL.path == expected)
    }
  }

  @Test(arguments: [
    ("/a/b/c", "/a/b", "c"),
    ("/a/b/c/", "/a/b", "c"),
    ("/a", "/", "a"),
    ("/", "/", "/"),
    ("name", ".", "name"),
    ("name/", ".", "name"),
    ("a//b", "a", "b"),
    ("//a", "/", "a"),
    ("//", "/", "/"),
    ("/a//b//", "/a", "b"),
    ("/é/ü.json", "/é", "ü.json"),
    ("", ".", ""),
  ])
  func splitsParentAndName(path: String, parent: String, name: String) {
    #expect(LexicalPath.parent(of: path) == parent)
    #expect(LexicalPath.name(of: path) == name)
  }

  @Test(arguments: [
    ("/a/b", "/a", true),
    ("/a/b/c", "/a", false),
    ("/ab", "/a", false),
    ("/a", "/a", false),
    ("/a/", "/a", false),
    ("/x", "/", true),
    ("/x/y", "/", false),
    ("/a/b", "", false),
  ])
  func knowsADirectChild(path: String, folder: String, isChild: Bool) {
    #expect(LexicalPath.isDirectChild(path, of: folder) == isChild)
    #expect(isChild == (!folder.isEmpty && LexicalPath.parent(of: path) == folder))
  }

  @Test func resolvesSymlinkedFoldersAndDots() async throws {
    try await withTemporaryDirectory { folder in
      let real = folder.appending(path: "real")
      try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
      let link = folder.appending(path: "link")
      try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
      let resolvedFolder = ResolvedPath.of(path: real.path)
      #expect(ResolvedPath.of(path: link.path + "/./x/../n.json") == resolvedFolder + "/n.json")
    }
  }

  /// A file's folder comes with its path: the folder the path resolves to, through a linked
  /// folder, to a link's target's folder, and as it is when the folder does not exist yet.
  @Test func aResolvedFileComesWithItsRealFolder() async throws {
    try await withTemporaryDirectory { folder in
      let manager = FileManager.default
      let real = folder.appending(path: "real")
      let other = folder.appending(path: "other")
      for made in [real, other] {
        try manager.createDirectory(at: made, withIntermediateDirectories: true)
      }
      try manager.createSymbolicLink(
        at: folder.appending(path: "link"), withDestinationURL: real)
      try manager.createSymbolicLink(
        atPath: real.appending(path: "elsewhere.json").path,
        withDestinationPath: other.appending(path: "t.json").path)
      let (realFolder, otherFolder) = (
        ResolvedPath.of(path: real.path), ResolvedPath.of(path: other.path)
      )
      for (path, folder) in [
        (folder.path + "/link/n.json", realFolder), (real.path + "/elsewhere.json", otherFolder),
        (folder.path + "/none/n.json", folder.path + "/none"),
      ] {
        let resolved = ResolvedPath.file(URL(filePath: path))
        #expect(resolved.folder == HashedPath(folder), "\(path)")
        #expect(resolved.path == ResolvedPath.of(path: path))
        #expect(LexicalPath.parent(of: resolved.path) == folder)
      }
    }
  }

  @Test func aFolderLinkPointedElsewhereIsResolvedAgain() async throws {
    try await withTemporaryDirectory { folder in
      let first = folder.appending(path: "first")
      let second = folder.appending(path: "second")
      for real in [first, second] {
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
      }
      let link = folder.appending(path: "link")
      try FileManager.default.createSymbolicLink(at: link, withDestinationURL: first)
      let key = link.path + "/n.json"
      #expect(ResolvedPath.of(path: key) == ResolvedPath.of(path: first.path) + "/n.json")
      // Resolved folders are remembered: re-pointing the link must not leave keys on the old one.
      try FileManager.default.removeItem(at: link)
      try FileManager.default.createSymbolicLink(at: link, withDestinationURL: second)
      #expect(ResolvedPath.of(path: key) == ResolvedPath.of(path: second.path) + "/n.json")
    }
  }

  /// A folder unchanged for two seconds is listed once for its links instead of each name being
  /// asked: the links it held are followed, and so is one made after the listing.
  @Test func aListedFolderFollowsItsLinksAndOnesMadeSince() async throws {
    try await withTemporaryDirectory { folder in
      let manager = FileManager.default
      let files = folder.appending(path: "files")
      try manager.createDirectory(at: files, withIntermediateDirectories: true)
      let real = ResolvedPath.of(path: files.path)
      try Data("1".utf8).write(to: files.appending(path: "plain.json"))
      try manager.createSymbolicLink(
        atPath: files.appending(path: "old.json").path, withDestinationPath: "plain.json")
      // Not an event to wait for: the file system's clock must move past the folder's change.
      try await Task.sleep(for: .seconds(3))
      #expect(ResolvedPath.of(path: files.path + "/plain.json") == real + "/plain.json")
      #expect(ResolvedPath.of(path: files.path + "/old.json") == real + "/plain.json")
      #expect(ResolvedPath.of(path: files.path + "/missing.json") == real + "/missing.json")
      try manager.createSymbolicLink(
        atPath: files.appending(path: "new.json").path, withDestinationPath: "plain.json")
      #expect(ResolvedPath.of(path: files.path + "/new.json") == real + "/plain.json")
      // Replacing a listed file by a link, by rename (editors, `ln -sf`), counts too.
      try manager.createSymbolicLink(
        atPath: files.appending(path: "swap").path, withDestinationPath: "missing.json")
      #expect(rename(files.path + "/swap", files.path + "/plain.json") == 0)
      #expect(ResolvedPath.of(path: files.path + "/plain.json") == real + "/missing.json")
    }
  }

  /// A file link is read into a small buffer first: a target longer than it must still be
  /// followed whole, not cut off.
  @Test(arguments: [1, 300])
  func followsAFileLinkWhateverItsTargetsLength(nameLength: Int) async throws {
    try await withTemporaryDirectory { folder in
      var deep = ResolvedPath.of(path: folder.path)
      while deep.utf8.count < nameLength { deep += "/" + String(repeating: "d", count: 60) }
      try FileManager.default.createDirectory(
        at: URL(filePath: deep), withIntermediateDirectories: true)
      let target = deep + "/target.json"
      let link = folder.appending(path: "link.json")
      try FileManager.default.createSymbolicLink(
        at: link, withDestinationURL: URL(filePath: target))
      #expect(ResolvedPath.of(path: link.path) == target)
    }
  }
}

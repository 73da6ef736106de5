// localcloud-stress: a child-process writer for the multi-process and crash tests.
//
//   localcloud-stress --data-dir DIR --user NAME --prefix P [--count N] [--batch K]
//                     [--asset-bytes N] [--ack-file FILE] [--container ID]
//
// Saves records named P-0, P-1, … of type "Restaurant" to the public database. After each
// acknowledged save (or batch) it appends the record names to the ack file, so a parent that
// kills the process can check that every acknowledged write survived. --count 0 runs until killed.
import Foundation
import LocalCloud

struct Options {
    var dataDirectory = ""
    var user = "stress"
    var prefix = "w"
    var count = 100
    var batch = 1
    var assetBytes = 0
    var ackFile: String?
    var container = "iCloud.Test"
}

func parse(_ arguments: [String]) -> Options? {
    var options = Options()
    var iterator = arguments.dropFirst().makeIterator()
    while let flag = iterator.next() {
        guard let value = iterator.next() else { return nil }
        switch flag {
        case "--data-dir": options.dataDirectory = value
        case "--user": options.user = value
        case "--prefix": options.prefix = value
        case "--count": options.count = Int(value) ?? options.count
        case "--batch": options.batch = max(1, Int(value) ?? 1)
        case "--asset-bytes": options.assetBytes = Int(value) ?? 0
        case "--ack-file": options.ackFile = value
        case "--container": options.container = value
        default: return nil
        }
    }
    return options.dataDirectory.isEmpty ? nil : options
}

func writeAck(_ names: [String], to handle: FileHandle?) {
    guard let handle else { return }
    handle.write(Data(names.map { $0 + "\n" }.joined().utf8))
}

guard let options = parse(CommandLine.arguments) else {
    FileHandle.standardError.write(Data("usage: localcloud-stress --data-dir DIR [--user U] [--prefix P] [--count N] [--batch K] [--asset-bytes N] [--ack-file F]\n".utf8))
    exit(2)
}

let container = Container(configuration: .init(
    containerIdentifier: options.container,
    dataDirectory: URL(fileURLWithPath: options.dataDirectory, isDirectory: true),
    user: options.user))
let database = container.publicCloudDatabase
let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("localcloud-stress-\(getpid())", isDirectory: true)
try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
var ack: FileHandle?
if let path = options.ackFile {
    if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
    ack = FileHandle(forWritingAtPath: path)
    ack?.seekToEndOfFile()
}

func makeRecord(_ index: Int) throws -> Record {
    let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "\(options.prefix)-\(index)"))
    record["name"] = "\(options.prefix) restaurant \(index)"
    record["type"] = "Stress"
    record["writer"] = options.prefix
    if options.assetBytes > 0 {
        var bytes = Data(count: options.assetBytes)
        bytes.withUnsafeMutableBytes { raw in
            for i in 0..<raw.count { raw[i] = UInt8(truncatingIfNeeded: i &* 31 &+ index) }
        }
        bytes.append(Data("\(options.prefix)-\(index)".utf8))
        let file = scratch.appendingPathComponent("\(index).bin")
        try bytes.write(to: file)
        record["image"] = Asset(fileURL: file)
    }
    return record
}

var index = 0
var failures = 0
while options.count == 0 || index < options.count {
    let upper = options.count == 0 ? index + options.batch : min(index + options.batch, options.count)
    do {
        let records = try (index..<upper).map(makeRecord)
        if records.count == 1, let record = records.first {
            _ = try await database.save(record)
        } else {
            let (saves, _) = try await database.modifyRecords(saving: records, deleting: [])
            for (_, result) in saves { _ = try result.get() }
        }
        writeAck(records.map { $0.recordID.recordName }, to: ack)
        for i in index..<upper { try? FileManager.default.removeItem(at: scratch.appendingPathComponent("\(i).bin")) }
    } catch {
        failures += 1
        FileHandle.standardError.write(Data("localcloud-stress: \(error)\n".utf8))
    }
    index = upper
}
try? FileManager.default.removeItem(at: scratch)
print("wrote \(index) records, \(failures) failures")
exit(failures == 0 ? 0 : 1)

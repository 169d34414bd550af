import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

/// RealmSwift's `MixedCollectionTest`: lists and dictionaries inside an `AnyRealmValue`, nested
/// to any depth, unmanaged and managed, read live and changed in place.
@Suite("Lists and dictionaries in AnyRealmValue")
struct MixedCollectionTests {
    func openRealm(_ directory: TemporaryDirectory, _ kind: RealmKind) throws -> Realm {
        try Realm(configuration: kind.configuration(directory, objectTypes: [Setting.self, Profile.self]))
    }

    static let date = Date(timeIntervalSince1970: 1_700_000_000.25)
    static let id = ObjectId.generate()
    static let uuid = UUID()
    static var scalars: [AnyRealmValue] { [
        .string("hello"), .bool(false), .int(234), .float(789.123), .double(12345.678901), .data(Data("a".utf8)),
        .date(date), .objectId(id), .uuid(uuid), .decimal128(567), .none,
    ] }

    @Test("a list of every kind of value, set unmanaged, added, replaced, created from an array and read back", arguments: RealmKind.allCases)
    func list(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try openRealm(directory, kind)
        let profile = Profile()
        profile.name = "linked"
        let elements = Self.scalars + [.object(profile)]
        func check(_ value: AnyRealmValue?, _ label: Comment) {
            let list = value?.listValue
            #expect(list?.count == elements.count, label)
            #expect(list.map { Array($0.prefix(Self.scalars.count)) } == Self.scalars, label)
            #expect(list?.last?.object(Profile.self)?.name == "linked", label)
        }
        let setting = Setting()
        setting.value = .fromArray(elements)
        check(setting.value, "unmanaged")
        try realm.write { realm.add(setting) }
        check(setting.value, "added")
        #expect(setting.value.listValue?.realm === realm)
        #expect(realm.objects(Profile.self).count == 1, "the linked object was added with it")
        try realm.write { setting.value = .fromArray([.none]) }
        #expect(setting.value.listValue.map(Array.init) == [AnyRealmValue.none])
        try realm.write { realm.create(Setting.self, value: ["id": 2, "value": elements]) }
        check(realm.object(ofType: Setting.self, forPrimaryKey: 2)?.value, "created")
        if kind == .file {
            let again = try Realm(configuration: kind.configuration(directory, objectTypes: [Setting.self, Profile.self]))
            check(again.object(ofType: Setting.self, forPrimaryKey: 2)?.value, "reopened")
        }
    }

    @Test("a managed list inside a value changes in place: set, append, insert, remove, move, and each is stored", arguments: RealmKind.allCases)
    func listChangesInPlace(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try openRealm(directory, kind)
        let setting = Setting()
        setting.value = .fromArray([.string("hello"), .bool(false), .int(234)])
        try realm.write { realm.add(setting) }
        let list = try #require(setting.value.listValue)
        try realm.write {
            list[0] = .double(1.5)
            setting.value.listValue?[1] = .float(2.5)
            list.append(.string("end"))
            list.insert(.int(0), at: 0)
        }
        let read = try #require(realm.objects(Setting.self).first?.value.listValue)
        #expect(Array(read) == [.int(0), .double(1.5), .float(2.5), .int(234), .string("end")])
        try realm.write {
            read.remove(at: 0)
            read.move(from: 0, to: 3)
            read.removeLast()
        }
        #expect(Array(list) == [.float(2.5), .int(234), .string("end")])
        #expect(list.count == 3 && !list.isInvalidated)
        try realm.write { setting.value = .int(1) }
        #expect(list.isInvalidated, "the value no longer holds a list")
    }

    @Test("a dictionary of every kind of value, changed in place, keys removed by assigning nil", arguments: RealmKind.allCases)
    func dictionary(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try openRealm(directory, kind)
        var entries: [String: AnyRealmValue] = [:]
        for (index, value) in Self.scalars.enumerated() { entries["key\(index)"] = value }
        let setting = Setting()
        setting.value = .fromDictionary(entries)
        #expect(setting.value.dictionaryValue?["key0"] == .string("hello"))
        setting.value.dictionaryValue?["key0"] = .int(7)
        #expect(setting.value.dictionaryValue?["key0"] == .int(7), "an unmanaged dictionary changes in place too")
        try realm.write { realm.add(setting) }
        let map = try #require(setting.value.dictionaryValue)
        #expect(map.count == Self.scalars.count)
        for (index, value) in Self.scalars.enumerated().dropFirst() { #expect(map["key\(index)"] == value) }
        try realm.write {
            map["key0"] = .double(12345.678901)
            map["new"] = .bool(true)
            map["key1"] = nil
        }
        let read = try #require(realm.objects(Setting.self).first?.value.dictionaryValue)
        #expect(read["key0"] == .double(12345.678901) && read["new"] == .bool(true) && read["key1"] == nil)
        #expect(read.count == Self.scalars.count)
        try realm.write { realm.create(Setting.self, value: ["id": 2, "value": ["a": ["b": ["c": AnyRealmValue.int(1)]]]]) }
        let created = realm.object(ofType: Setting.self, forPrimaryKey: 2)?.value
        #expect(created?.dictionaryValue?["a"]?.dictionaryValue?["b"]?.dictionaryValue?["c"] == .int(1))
    }

    @Test("collections nested six deep are read and changed at any depth, in a property, a list element and a map value", arguments: RealmKind.allCases)
    func deepNesting(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try openRealm(directory, kind)
        let profile = Profile()
        profile.name = "deep"
        var value = AnyRealmValue.object(profile)
        for depth in 0..<6 { value = depth % 2 == 0 ? .fromArray([value]) : .fromDictionary(["k\(depth)": value]) }
        func deepest(_ value: AnyRealmValue?) -> AnyRealmValue? {
            value?.dictionaryValue?["k5"]?.listValue?[0].dictionaryValue?["k3"]?.listValue?[0].dictionaryValue?["k1"]?.listValue?[0]
        }
        #expect(deepest(value)?.object(Profile.self)?.name == "deep")
        let setting = Setting()
        setting.value = value
        setting.history.append(value)
        setting.options["deep"] = value
        try realm.write { realm.add(setting) }
        let managed: [AnyRealmValue?] = [setting.value, setting.history.first, setting.options["deep"]]
        for (place, value) in managed.enumerated() {
            #expect(deepest(value)?.object(Profile.self)?.name == "deep", "place \(place)")
        }
        try realm.write {
            setting.value.dictionaryValue?["k5"]?.listValue?[0].dictionaryValue?["k3"]?.listValue?.append(.string("property"))
            setting.history[0].dictionaryValue?["k5"]?.listValue?[0].dictionaryValue?["k3"]?.listValue?.append(.string("element"))
            setting.options["deep"]?.dictionaryValue?["k5"]?.listValue?[0].dictionaryValue?["k3"]?.listValue?.append(.string("entry"))
        }
        let read = try #require(realm.objects(Setting.self).first)
        let inner: [AnyRealmValue?] = [read.value, read.history.first, read.options["deep"]]
        for (place, expected) in zip(inner, ["property", "element", "entry"]) {
            let list = place?.dictionaryValue?["k5"]?.listValue?[0].dictionaryValue?["k3"]?.listValue
            #expect(list?.count == 2 && list?.last == .string(expected), "\(expected)")
        }
    }

    @Test("changing a managed nested collection outside a write, or after its object is deleted, stops with a message naming the property")
    func misuse() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "mixed-misuse", objectTypes: [Setting.self, Profile.self]))
            let setting = Setting()
            setting.value = .fromArray([.int(1), .fromDictionary(["a": .int(1)])])
            try realm.write { realm.add(setting) }
            setting.value.listValue?[1].dictionaryValue?["b"] = .int(2)
        }
        let printed = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(printed.contains("cannot change the dictionary in 'Setting.value'[1] outside a write transaction"), "\(printed)")
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "mixed-deleted", objectTypes: [Setting.self, Profile.self]))
        let setting = Setting()
        setting.value = .fromDictionary(["a": .int(1)])
        try realm.write { realm.add(setting) }
        let map = try #require(setting.value.dictionaryValue)
        try realm.write { realm.delete(setting) }
        #expect(map.isInvalidated && map.realm === realm)
    }

    @Test("equality and hashing: lists and dictionaries compare by contents, managed or not; @type names them in queries", arguments: RealmKind.allCases)
    func equalityAndQueries(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try openRealm(directory, kind)
        #expect(AnyRealmValue.fromArray([.int(1)]) == .fromArray([.int(1)]))
        #expect(AnyRealmValue.fromArray([.int(1)]) != .fromArray([.int(2)]))
        #expect(AnyRealmValue.fromDictionary(["a": .int(1)]) == .fromDictionary(["a": .int(1)]))
        #expect(AnyRealmValue.fromArray([]) != .fromDictionary([:]))
        #expect(Set<AnyRealmValue>([.fromArray([.int(1)]), .fromArray([.int(1)])]).count == 1)
        try realm.write {
            realm.create(Setting.self, value: ["id": 1, "value": AnyRealmValue.fromArray([.int(1)])])
            realm.create(Setting.self, value: ["id": 2, "value": AnyRealmValue.fromDictionary(["a": .int(1)])])
            realm.create(Setting.self, value: ["id": 3, "value": AnyRealmValue.none])
            realm.create(Setting.self, value: ["id": 4, "value": AnyRealmValue.int(1)])
        }
        let settings = realm.objects(Setting.self)
        // Managed collections are equal when they are the same stored collection, as in
        // RealmSwift: not to an unmanaged copy, nor to another object's equal one.
        let first = try #require(settings.first)
        #expect(first.value == settings.first?.value && first.value.listValue == first.value.listValue)
        #expect(first.value != .fromArray([.int(1)]))
        try realm.write { realm.create(Setting.self, value: ["id": 5, "value": AnyRealmValue.fromArray([.int(1)])]) }
        #expect(first.value != realm.object(ofType: Setting.self, forPrimaryKey: 5)?.value)
        #expect(first.history == first.history && first.history != realm.object(ofType: Setting.self, forPrimaryKey: 5)?.history)
        #expect(List<Int>() == List<Int>() && MutableSet<Int>() == MutableSet<Int>() && Map<String, Int>() == Map<String, Int>())
        try realm.write { realm.delete(realm.object(ofType: Setting.self, forPrimaryKey: 5)!) }
        #expect(settings.filter("value.@type == 'list'").map(\.id) == [1])
        #expect(settings.filter("value.@type == 'dictionary'").map(\.id) == [2])
        #expect(settings.filter("value == nil").map(\.id) == [3], "a list or dictionary is not nil")
        #expect(settings.filter("value == 1").map(\.id) == [4])
        #expect(settings.sorted(byKeyPath: "value").map(\.id) == [3, 4, 1, 2])
    }

    @Test("JSON: lists and dictionaries encode as arrays and objects and decode back")
    func codable() throws {
        let value = AnyRealmValue.fromDictionary(["list": .fromArray([.int(1), .string("two")]), "flag": .bool(true)])
        let data = try JSONEncoder().encode(value)
        let decoded = try JSONDecoder().decode(AnyRealmValue.self, from: data)
        #expect(decoded == value)
    }

    @Test("a list that holds itself cannot be stored: the programmer error names the nesting")
    func cycle() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "mixed-cycle", objectTypes: [Setting.self, Profile.self]))
            let list = List<AnyRealmValue>()
            list.append(.list(list))
            try realm.write { realm.create(Setting.self, value: ["id": 1, "value": AnyRealmValue.list(list)]) }
        }
        let printed = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(printed.contains("nest more than 100 deep"), "\(printed)")
    }

    @Test("a change to a nested collection is a change of the property holding it; a frozen object keeps the collection as it was")
    func changesAndFreezing() async throws {
        let realm = try await Realm.open(configuration: Realm.Configuration(inMemoryIdentifier: "mixed-changes", objectTypes: [Setting.self, Profile.self]))
        let setting = Setting()
        setting.value = .fromArray([.fromDictionary(["a": .int(1)])])
        setting.history.append(.fromArray([.int(1)]))
        try await realm.asyncWrite { realm.add(setting) }
        let frozen = setting.freeze()
        var changes = setting.changes.makeAsyncIterator()
        try await realm.asyncWrite { setting.value.listValue?[0].dictionaryValue?["b"] = .int(2) }
        guard case .change(_, let properties)? = await changes.next() else { Issue.record("no change"); return }
        #expect(properties.map(\.name) == ["value"])
        try await realm.asyncWrite { setting.history[0].listValue?.append(.int(2)) }
        guard case .change(_, let listed)? = await changes.next() else { Issue.record("no change"); return }
        #expect(listed.map(\.name) == ["history"])
        #expect(frozen.value.listValue?[0].dictionaryValue?.count == 1 && frozen.history[0].listValue?.count == 1)
        #expect(setting.value.listValue?[0].dictionaryValue?.count == 2 && setting.history[0].listValue?.count == 2)
    }

    @Test("a set cannot hold a list or dictionary, as in Realm: a programmer error that says where to keep them")
    func notInSets() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let set = MutableSet<AnyRealmValue>()
            set.insert(.fromArray([.int(1)]))
        }
        let printed = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(printed.contains("a MutableSet cannot hold a list or a dictionary"), "\(printed)")
    }

    @Test("a nested list and dictionary have change streams: positions and keys inserted, deleted and modified, and an end when the value no longer holds them")
    func nestedChangeStreams() async throws {
        let realm = try await Realm.open(configuration: Realm.Configuration(inMemoryIdentifier: "mixed-streams", objectTypes: [Setting.self, Profile.self]))
        let setting = Setting()
        setting.value = .fromDictionary(["list": .fromArray([.int(1), .int(2)]), "key0": .fromDictionary(["a": .int(1), "b": .int(2)])])
        try await realm.asyncWrite { realm.add(setting) }
        let list = try #require(setting.value.dictionaryValue?["list"]?.listValue)
        let map = try #require(setting.value.dictionaryValue?["key0"]?.dictionaryValue)
        var listChanges = list.changes.makeAsyncIterator()
        var mapChanges = map.changes.makeAsyncIterator()
        guard case .initial(let initialList)? = await listChanges.next(), case .initial? = await mapChanges.next() else {
            Issue.record("no initial")
            return
        }
        #expect(initialList.count == 2)
        try await realm.asyncWrite {
            list.append(.int(3))
            map["a"] = nil
            map["b"] = .string("two")
            map["c"] = .bool(true)
        }
        guard case .update(_, let deletions, let insertions, let modifications)? = await listChanges.next() else { Issue.record("no list update"); return }
        #expect(deletions.isEmpty && insertions == [2] && modifications.isEmpty)
        guard case .update(let changed, let removed, let added, let modified)? = await mapChanges.next() else { Issue.record("no map update"); return }
        #expect(changed.count == 2 && removed == ["a"] && added == ["c"] && modified == ["b"])
        try await realm.asyncWrite { list[0] = .string("one") }
        guard case .update(_, _, _, let set)? = await listChanges.next() else { Issue.record("no list update"); return }
        #expect(set == [0])
        try await realm.asyncWrite { setting.value = .none }
        guard case .update(_, let emptied, _, _)? = await listChanges.next() else { Issue.record("no final update"); return }
        #expect(emptied == [0, 1, 2])
        #expect(await listChanges.next() == nil, "the stream ends when the value no longer holds the list")
    }

    @Test("queries reach into nested collections: keys, positions, FIRST, LAST, every element with [*], and @count", arguments: RealmKind.allCases)
    func queries(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try openRealm(directory, kind)
        try realm.write {
            realm.create(Setting.self, value: ["id": 1, "value": ["name": "a", "tags": ["x", "y"], "size": 3]])
            realm.create(Setting.self, value: ["id": 2, "value": ["name": "b", "tags": ["y"], "nested": ["deep": [1, 2, 3]]]])
            realm.create(Setting.self, value: ["id": 3, "value": [10, ["k": "v"], "last"]])
            realm.create(Setting.self, value: ["id": 4, "value": AnyRealmValue.int(10)])
            realm.create(Setting.self, value: ["id": 5, "value": AnyRealmValue.fromArray([])])
        }
        let settings = realm.objects(Setting.self)
        func ids(_ predicate: String, _ arguments: Any...) -> [Int] {
            (try? settings.filter(RealmPredicate(predicate, arguments: arguments)).map(\.id)) ?? [-1]
        }
        #expect(ids("value['name'] == 'a'") == [1])
        #expect(ids("value['name'] BEGINSWITH %@", "b") == [2])
        #expect(ids("value['missing'] == nil") == [1, 2, 3, 4, 5], "a key a value lacks reads nil")
        #expect(ids("value['tags'][0] == 'y'") == [2])
        #expect(ids("ANY value['tags'][*] == 'y'") == [1, 2])
        #expect(ids("value['tags'][LAST] == 'y'") == [1, 2])
        #expect(ids("value['tags'][FIRST] == 'x'") == [1])
        #expect(ids("value['nested']['deep'][2] == 3") == [2])
        #expect(ids("value[0] == 10") == [3], "a list's element, not the value 10 itself")
        #expect(ids("value[1]['k'] == 'v'") == [3])
        #expect(ids("value == 10") == [4])
        #expect(ids("value.@count == 3") == [1, 2, 3])
        #expect(ids("value.@size == 0") == [4, 5])
        #expect(ids("value['tags'].@count == 2") == [1])
        #expect(ids("value['tags'].@type == 'list'") == [1, 2])
        #expect(ids("value[*] == 'last'") == [3])
        #expect(ids("value['size'] > 2") == [1])
        #expect(settings.where { $0.value["tags"][0] == .string("y") }.map(\.id) == [2])
        #expect(settings.where { $0.value["nested"]["deep"][2] == .int(3) }.map(\.id) == [2])
        #expect(settings.where { $0.value["tags"].any == .string("y") }.map(\.id) == [1, 2])
        #expect(settings.where { $0.value[0] == .int(10) || $0.value["size"] > .int(2) }.map(\.id) == [1, 3])
        // Messages write the path as it was written.
        do {
            _ = try settings.filter(RealmPredicate("value['tags'][*].@sum > 1"))
            Issue.record("an aggregate over mixed elements was accepted")
        } catch {
            #expect("\(error)".contains("value['tags'][*]"), "\(error)")
        }
        for invalid in ["value[-1] == 1", "value['a'].name == 1", "options[0] == 1", "value[x] == 1"] {
            #expect(throws: RealmError.self, "\(invalid)") { try settings.filter(RealmPredicate(invalid)) }
        }
    }

    @Test("a migration copies mixed values holding links, nested or not, from oldObject to newObject; the links read back as the model's class")
    func migrationCopiesLinks() throws {
        let directory = TemporaryDirectory()
        var configuration = Realm.Configuration(fileURL: directory.file(), objectTypes: [Setting.self, Profile.self])
        do {
            let realm = try Realm(configuration: configuration)
            let profile = Profile()
            profile.name = "linked"
            try realm.write {
                realm.create(Setting.self, value: ["id": 1, "value": ["a": [1, ["deep": true]], "p": profile]])
                realm.create(Setting.self, value: ["id": 2, "value": AnyRealmValue.object(profile)])
            }
        }
        configuration.schemaVersion = 2
        configuration.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "Setting") { oldObject, newObject in
                newObject!["value"] = oldObject!["value"]
            }
        }
        let realm = try Realm(configuration: configuration)
        let settings = realm.objects(Setting.self).sorted(byKeyPath: "id")
        // Read before the handle used the Profile model: its class comes from objectTypes.
        #expect(settings[1].value.object(Profile.self)?.name == "linked")
        #expect(settings[0].value.dictionaryValue?["p"]?.object(Profile.self)?.name == "linked")
        #expect(settings[0].value.dictionaryValue?["a"]?.listValue?[1].dictionaryValue?["deep"] == .bool(true))
        #expect(realm.objects(Profile.self).count == 1, "the link is to the same object, not a copy")
    }

    @Test("a nested list or dictionary freezes, thaws and travels by reference, in a property, a list element and a map value")
    func threadConfinement() throws {
        let directory = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.file(), objectTypes: [Setting.self, Profile.self])
        let realm = try Realm(configuration: configuration)
        let setting = Setting()
        setting.value = .fromDictionary(["list": .fromArray([.int(1)])])
        setting.history.append(.fromArray([.int(1)]))
        setting.options["o"] = .fromDictionary(["a": .int(1)])
        try realm.write { realm.add(setting) }
        let list = try #require(setting.value.dictionaryValue?["list"]?.listValue)
        let element = try #require(setting.history[0].listValue)
        let entry = try #require(setting.options["o"]?.dictionaryValue)
        let frozen = (list.freeze(), element.freeze(), entry.freeze())
        try realm.write {
            list.append(.int(2))
            element.append(.int(2))
            entry["b"] = .int(2)
        }
        #expect(frozen.0.isFrozen && frozen.0.count == 1 && frozen.1.count == 1 && frozen.2.count == 1)
        #expect(frozen.0.thaw()?.count == 2 && frozen.1.thaw()?.count == 2 && frozen.2.thaw()?.count == 2)
        let references = (ThreadSafeReference(to: list), ThreadSafeReference(to: element), ThreadSafeReference(to: entry))
        let counts = try onAnotherThread {
            let other = try Realm(configuration: configuration)
            return [other.resolve(references.0)?.count, other.resolve(references.1)?.count, other.resolve(references.2)?.count]
        }
        #expect(counts == [2, 2, 2])
        try realm.write { setting.value = .none }
        #expect(frozen.0.thaw() == nil, "the value no longer holds the list")
    }
}

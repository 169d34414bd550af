import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

class LinkBase: Object {
    @Persisted var name: String
}

final class LinkDerived: LinkBase {
    @Persisted var extra: Int
}

final class LinkHolder: Object {
    @Persisted var base: LinkBase?
    @Persisted var bases: List<LinkBase>
}

/// A link or list declared with a base class refuses an object of a subclass, as Realm does:
/// each class has a table of its own, and the link would read back an unrelated base object
/// (issue 26, item 7).
@Suite("Links and lists hold objects of exactly their class")
struct SubclassLinkTests {
    static func refused(_ realm: Realm, _ body: () -> Void) -> RealmError? {
        do {
            try realm.write(body)
            return nil
        } catch {
            return error as? RealmError
        }
    }

    @Test("a subclass object in a link or list fails the write with invalidValue and stores nothing", arguments: RealmKind.allCases)
    func subclassRefused(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [LinkHolder.self, LinkBase.self, LinkDerived.self]))
        let holder = LinkHolder()
        try realm.write { realm.add(holder) }
        let cases: [() -> Void] = [
            { holder.base = LinkDerived() },
            { holder.bases.append(LinkDerived()) },
            {
                let unmanaged = LinkHolder()
                unmanaged.bases.append(LinkDerived())
                realm.add(unmanaged)
            },
            {
                let unmanaged = LinkHolder()
                unmanaged.base = LinkDerived()
                realm.add(unmanaged)
            },
        ]
        for (number, change) in cases.enumerated() {
            let error = Self.refused(realm, change)
            #expect(error?.code == .invalidValue, "case \(number)")
            #expect(error?.message.contains("cannot hold a 'LinkDerived'") == true, "case \(number): \(error?.message ?? "")")
        }
        #expect(realm.objects(LinkHolder.self).count == 1)
        #expect(holder.base == nil)
        #expect(holder.bases.isEmpty)
        #expect(realm.objects(LinkDerived.self).isEmpty)
        // The declared class itself is linked as always.
        try realm.write {
            holder.base = LinkBase(value: ["name": "base"])
            holder.bases.append(LinkBase(value: ["name": "listed"]))
        }
        #expect(holder.base?.name == "base")
        #expect(holder.bases.map(\.name) == ["listed"])
    }
}

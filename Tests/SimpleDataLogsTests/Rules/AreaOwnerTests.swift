import Foundation
import Testing
@testable import SimpleDataLogs

@Suite("Rules: whose events an area holds (AreaOwner) and the hash behind it")
struct AreaOwnerTests {
    static let key = "sdl_pub_0123456789abcdef"
    static let url = URL(string: "https://edge.example.com/v1/events")!

    @Test("SHA-256 gives the FIPS 180-4 digests, across block boundaries")
    func sha256Vectors() {
        #expect(SHA256.hex(SHA256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex(SHA256.hash([UInt8](repeating: 0x61, count: 1_000))) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    @Test("HMAC-SHA-256 gives RFC 4231's results, a key longer than a block included")
    func hmacVectors() {
        let key = [UInt8](repeating: 0x0b, count: 20)
        #expect(SHA256.hex(SHA256.hmac(key: key, message: Array("Hi There".utf8)))
            == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(SHA256.hex(SHA256.hmac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(SHA256.hex(SHA256.hmac(key: [UInt8](repeating: 0xaa, count: 131), message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
            == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test("the owner file holds the fingerprint, the key in part and the endpoint; never the key; it reads back as written")
    func ownerFile() throws {
        let owner = AreaOwner(ingestKey: Self.key, eventsURL: Self.url)
        let text = String(decoding: owner.fileContents, as: UTF8.self)
        #expect(!text.contains(Self.key) && !text.contains("0123456789abcdef"))
        #expect(text.contains(IngestKey.redacted(Self.key)) && text.contains("https://edge.example.com/v1/events"))
        #expect(owner.fingerprint.count == 64 && text.contains(owner.fingerprint))
        #expect(AreaOwner.parse(owner.fileContents) == owner)
        #expect(AreaOwner.parse(Array("garbage".utf8)) == nil)
        #expect(AreaOwner.parse(Array(#"{"sdl_owner":2,"fingerprint":"\#(owner.fingerprint)","key":"k","endpoint":"e"}"#.utf8)) == nil, "a later format is not read as this one")
    }

    @Test("the claim: no file is anyone's; the same key and endpoint are ours; another key, another endpoint or a file that cannot be read are not")
    func claims() {
        let mine = AreaOwner(ingestKey: Self.key, eventsURL: Self.url)
        let otherKey = AreaOwner(ingestKey: "sdl_pub_0123456789abcdeX", eventsURL: Self.url)
        let otherEndpoint = AreaOwner(ingestKey: Self.key, eventsURL: URL(string: "https://staging.example.com/v1/events")!)
        #expect(AreaOwner.claim(ownerFile: nil, mine: mine) == .unclaimed)
        #expect(AreaOwner.claim(ownerFile: nil, mine: nil) == .unclaimed)
        #expect(AreaOwner.claim(ownerFile: mine.fileContents, mine: mine) == .ours)
        #expect(AreaOwner.claim(ownerFile: otherKey.fileContents, mine: mine) == .another(otherKey))
        #expect(AreaOwner.claim(ownerFile: otherEndpoint.fileContents, mine: mine) == .another(otherEndpoint))
        #expect(AreaOwner.claim(ownerFile: mine.fileContents, mine: nil) == .another(mine), "a client that cannot send takes no one's area")
        #expect(AreaOwner.claim(ownerFile: Array("{".utf8), mine: mine) == .unknown)
        #expect(AreaOwner.Claim.unclaimed.isUsable && AreaOwner.Claim.ours.isUsable)
        #expect(!AreaOwner.Claim.another(otherKey).isUsable && !AreaOwner.Claim.unknown.isUsable)
        #expect(otherKey.keyHint == mine.keyHint && !otherKey.matches(mine), "the redacted form alone never decides")
    }
}

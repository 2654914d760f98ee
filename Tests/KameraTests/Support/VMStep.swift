import Foundation

/// One test class's script for a shared VM boot (`VMBoot`): run in a folder
/// of its own, with its own log (`step.log`), its exit status and its time
/// kept, after the boot's drivers were set up for it anew.
struct VMStep: @unchecked Sendable {
    /// The folder's name, unique in its boot; the failure messages say it.
    let name: String
    /// The test classes that read what the step wrote: it runs when one of them is selected.
    let owners: [String]
    let script: String
    /// Files written into the folder before the boot: name and contents.
    var files: [String: String] = [:]
    /// vivid's module parameters, loaded anew before the step ("" for the driver's defaults:
    /// one camera among its other nodes), so no step sees another's controls or a camera it unplugged.
    var vivid = ""
    /// v4l2loopback loaded for the step (with run-in-vm's parameters: /dev/video10), fresh each time.
    var loopback = false
    /// Seconds the step may take: only a catch for hangs (the VM is emulated).
    var timeout = 900
    /// Work on the host before the boot, in the step's folder (references
    /// rendered here, a package built); what it throws fails the step's tests.
    var prepare: ((URL) throws -> Void)?

    init(_ name: String, owners: [String], script: String, files: [String: String] = [:], vivid: String = "",
         loopback: Bool = false, timeout: Int = 900, prepare: ((URL) throws -> Void)? = nil) {
        (self.name, self.owners, self.script, self.files) = (name, owners, script, files)
        (self.vivid, self.loopback, self.timeout, self.prepare) = (vivid, loopback, timeout, prepare)
    }

    init(_ name: String, owner: String, script: String, files: [String: String] = [:], vivid: String = "",
         loopback: Bool = false, timeout: Int = 900, prepare: ((URL) throws -> Void)? = nil) {
        self.init(name, owners: [owner], script: script, files: files, vivid: vivid, loopback: loopback, timeout: timeout, prepare: prepare)
    }

    /// vivid with just two cameras, /dev/video0 and /dev/video1.
    static let twoCameras = "n_devs=2 node_types=0x1,0x1"
}

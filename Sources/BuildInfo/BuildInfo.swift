// `kameraVersion` is generated before each build by the VersionStamp plugin
// (Plugins/VersionStamp): the VERSION file's number and the git commit.

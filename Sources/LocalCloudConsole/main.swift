// `localcloud`: inspect and shape a LocalCloud container, like the CloudKit Console.
await Localcloud.runMain()

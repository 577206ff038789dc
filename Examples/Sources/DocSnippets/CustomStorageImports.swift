// docs/CustomStorage.md: the imports of a storage of your own (and of its tests).
// snippet.show
@_spi(Storage) import DiarySDK
@_spi(Storage) import DiarySDKConformance   // for StorageConformanceHarness in your tests
// snippet.hide

func customStorageImports() -> any ConformanceHarness.Type { StorageConformanceHarness.self }

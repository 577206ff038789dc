// Filled by the file-store work: the crash-test writer process.

#!/usr/bin/env node
require("../dist/preflight-check.cjs").main()

// The package's entry: the SDK as `npm run build` compiles it with the server (tsconfig.build.json),
// required from here so that the package resolves whether it is reached through a link or not.
module.exports = require('../../dist/sdk/typescript/src/index.js');

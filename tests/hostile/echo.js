// Node.js echo bot: answers each stdin line with {"echo": line}.
const readline = require("readline");
process.stdout.write(JSON.stringify({ hello: "node" }) + "\n");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  process.stdout.write(JSON.stringify({ echo: line }) + "\n");
});

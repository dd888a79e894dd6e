/**
 * A page the server serves itself (GraphiQL, the job board): the document with `title` and the
 * favicon, then `head` (styles), then `body`, whose scripts read `config` from the JSON script
 * element of id `configId` that comes before them. `<` is escaped in the config so that no value
 * can close the script element.
 */
export function htmlPage(page: { title: string; head: string; body: string; configId: string; config: object; scripts: string[] }): string {
  const json = JSON.stringify(page.config).replace(/</g, '\\u003c');
  const scripts = page.scripts.map((src) => `<script src="${src}"></script>\n`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title}</title>
<link rel="icon" href="/favicon.ico" type="image/svg+xml">
${page.head}
</head>
<body>
${page.body}
<script id="${page.configId}" type="application/json">${json}</script>
${scripts}</body>
</html>
`;
}

/** A self-contained GraphQL playground (no CDN): query, variables and the two auth headers. */
export const playgroundHtml = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Qhatu GraphQL</title>
<style>
body{font:14px system-ui,sans-serif;margin:0;display:grid;grid-template-rows:auto 1fr;height:100vh}
header{padding:8px 12px;background:#1f2937;color:#fff;display:flex;gap:8px;align-items:center}
header input{flex:1;padding:4px;font:inherit}main{display:grid;grid-template-columns:1fr 1fr;min-height:0}
textarea,pre{margin:0;padding:10px;font:13px ui-monospace,monospace;border:0;border-right:1px solid #ddd;overflow:auto}
section{display:grid;grid-template-rows:2fr 1fr;min-height:0}button{padding:4px 14px;font:inherit}
</style></head><body>
<header><strong>Qhatu GraphQL</strong>
<input id="tenant" placeholder="X-Tenant-ID"><input id="token" placeholder="Bearer token">
<button id="run">Run ▶</button></header>
<main><section><textarea id="query" spellcheck="false">{
  products(limit: 10) {
    edges { node { id title handle variants { id title price } } cursor }
    pageInfo { hasNextPage endCursor }
  }
}</textarea><textarea id="vars" spellcheck="false" placeholder="variables (JSON)">{}</textarea></section>
<pre id="out"></pre></main>
<script>
const $ = (id) => document.getElementById(id);
for (const id of ['tenant', 'token']) { $(id).value = localStorage.getItem('qhatu.' + id) || ''; }
$('run').onclick = async () => {
  for (const id of ['tenant', 'token']) localStorage.setItem('qhatu.' + id, $(id).value);
  let variables = {};
  try { variables = JSON.parse($('vars').value || '{}'); } catch (e) { $('out').textContent = 'variables: ' + e.message; return; }
  const res = await fetch(location.pathname, { method: 'POST', headers: { 'content-type': 'application/json',
    'x-tenant-id': $('tenant').value, authorization: 'Bearer ' + $('token').value },
    body: JSON.stringify({ query: $('query').value, variables }) });
  $('out').textContent = JSON.stringify(await res.json(), null, 2);
};
</script></body></html>`;

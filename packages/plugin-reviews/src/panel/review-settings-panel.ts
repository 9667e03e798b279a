import { escapeHtml } from '../services/plain-text.js';
import { REVIEW_SETTING_FIELDS, REVIEW_SETTINGS, type ProductReviewSettings } from '../services/settings.js';

/**
 * The product's review settings as an HTML fragment for an admin UI: what applies, who set it,
 * and a form to change it. Every value is escaped. The fragment holds no credential: its script
 * asks the host page for the request headers (`window.qhatuAdmin.headers()`, the admin's own
 * token and tenant) and calls the JSON endpoints with fetch; see the plugin's README.
 */
export function renderReviewSettingsPanel(view: ProductReviewSettings, options: { nonce?: string } = {}): string {
  const id = `qhatu-review-settings-${view.productId}`;
  const endpoint = `/admin/catalog/products/${view.productId}/review-settings`;
  const nonce = options.nonce ? ` nonce="${escapeHtml(options.nonce)}"` : '';
  const rows = REVIEW_SETTING_FIELDS.map((field) => {
    const own = Object.hasOwn(view.overrides, field);
    return `<tr data-field="${escapeHtml(field)}">
      <th scope="row" title="${escapeHtml(REVIEW_SETTINGS[field].description)}">${escapeHtml(REVIEW_SETTINGS[field].label)} <code>${escapeHtml(field)}</code></th>
      <td data-role="value">${escapeHtml(view.settings[field])}</td>
      <td data-role="source">${own ? 'this product' : 'store'}</td>
      <td><button type="button" data-reset="${escapeHtml(field)}"${own ? '' : ' hidden'}>Use the store's setting</button></td>
    </tr>`;
  }).join('\n');
  const choices = REVIEW_SETTING_FIELDS.map((field) => `<option value="${escapeHtml(field)}">${escapeHtml(REVIEW_SETTINGS[field].label)}</option>`).join('');
  return `<section class="qhatu-review-settings" id="${escapeHtml(id)}" data-endpoint="${escapeHtml(endpoint)}" aria-labelledby="${escapeHtml(id)}-title">
  <style${nonce}>
    .qhatu-review-settings table { border-collapse: collapse; }
    .qhatu-review-settings th, .qhatu-review-settings td { padding: 0.25rem 0.75rem 0.25rem 0; text-align: left; }
  </style>
  <h2 id="${escapeHtml(id)}-title">Review settings: <span data-role="product-title">${escapeHtml(view.productTitle)}</span></h2>
  <table>
    <thead><tr><th scope="col">Setting</th><th scope="col">Value</th><th scope="col">Set by</th><th scope="col"></th></tr></thead>
    <tbody>
${rows}
    </tbody>
  </table>
  <form data-role="change">
    <label>Setting <select name="field">${choices}</select></label>
    <label>Value <input name="value" required maxlength="64" placeholder="true, false or 1 to 5"></label>
    <button type="submit">Save for this product</button>
  </form>
  <p data-role="status" role="status" aria-live="polite"></p>
  <script${nonce}>${PANEL_SCRIPT.replace('__PANEL_ID__', id)}</script>
</section>
`;
}

/** The panel's behaviour; `__PANEL_ID__` is the section's id (made of a UUID). Writes text only, never HTML. */
const PANEL_SCRIPT = `(function () {
  var panel = document.getElementById('__PANEL_ID__');
  if (!panel || panel.getAttribute('data-ready')) return;
  panel.setAttribute('data-ready', 'true');
  var endpoint = panel.getAttribute('data-endpoint');
  var status = panel.querySelector('[data-role=status]');
  function say(text) { status.textContent = text; }
  function host() {
    var admin = window.qhatuAdmin;
    var headers = admin && typeof admin.headers === 'function' ? admin.headers() : null;
    if (!headers) throw new Error('The admin page gives the panel no credentials (window.qhatuAdmin.headers).');
    return { headers: headers, base: (admin.baseUrl || '').replace(/\\/$/, '') };
  }
  function call(method, path, body) {
    var h;
    try { h = host(); } catch (error) { return Promise.reject(error); }
    var headers = Object.assign({}, h.headers);
    if (body !== undefined) headers['content-type'] = 'application/json';
    return fetch(h.base + path, { method: method, headers: headers, credentials: 'omit', body: body === undefined ? undefined : JSON.stringify(body) })
      .then(function (res) {
        if (res.status === 204) return null;
        return res.json().then(function (json) {
          if (!res.ok) throw new Error(json && json.error ? json.error.message : 'The request failed (' + res.status + ').');
          return json.data;
        });
      });
  }
  function show(data) {
    panel.querySelectorAll('tr[data-field]').forEach(function (row) {
      var field = row.getAttribute('data-field');
      var own = Object.prototype.hasOwnProperty.call(data.overrides, field);
      row.querySelector('[data-role=value]').textContent = String(data.settings[field]);
      row.querySelector('[data-role=source]').textContent = own ? 'this product' : 'store';
      row.querySelector('[data-reset]').hidden = !own;
    });
    panel.dispatchEvent(new CustomEvent('qhatu:review-settings-changed', { bubbles: true, detail: data }));
  }
  function done() { say('Saved.'); }
  function failed(error) { say(error.message); }
  panel.querySelector('form').addEventListener('submit', function (event) {
    event.preventDefault();
    var form = event.currentTarget;
    say('Saving…');
    call('POST', endpoint, { field: form.elements.field.value, value: form.elements.value.value }).then(show).then(done, failed);
  });
  panel.addEventListener('click', function (event) {
    var button = event.target.closest && event.target.closest('button[data-reset]');
    if (!button) return;
    say('Saving…');
    call('DELETE', endpoint + '/' + encodeURIComponent(button.getAttribute('data-reset')))
      .then(function () { return call('GET', endpoint); }).then(show).then(done, failed);
  });
})();`;

/**
 * GET /embed.js: shows a published map on any page, modelled on the Studio Map SDK's
 * `createMap({ container, initialState: { publishedMapId } })`:
 *
 *   <div id="map" style="height: 480px"></div>
 *   <script src="https://studio.example.com/embed.js"></script>
 *   <script>StudioMap.createMap({ container: document.getElementById('map'), initialState: { publishedMapId: '…' } });</script>
 *
 * The map is the published page (/public/{id}?embed=1) in a frame: the studio's own code and policy run it,
 * the host page reaches none of its data, and a password-protected map asks for its password in the frame.
 * `createMap` answers a promise of `{ id, iframe, remove() }` once the frame has loaded; a bad argument
 * rejects it with a message saying which.
 */
export const EMBED_SCRIPT = `(function () {
  var script = document.currentScript;
  var origin = script && script.src ? new URL(script.src).origin : '';
  var ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  function createMap(options) {
    return new Promise(function (resolve, reject) {
      var o = options || {};
      var id = o.initialState && o.initialState.publishedMapId;
      if (!o.container || typeof o.container.appendChild !== 'function') return reject(new Error('createMap: container must be an element of the page'));
      if (typeof id !== 'string' || !ID.test(id)) return reject(new Error('createMap: initialState.publishedMapId must be the id of a published map'));
      var iframe = document.createElement('iframe');
      iframe.src = origin + '/public/' + encodeURIComponent(id) + '?embed=1';
      iframe.title = o.title || 'Published map';
      iframe.allowFullscreen = true;
      iframe.style.border = '0';
      iframe.style.width = o.width || '100%';
      iframe.style.height = o.height || '100%';
      iframe.addEventListener('load', function () {
        resolve({ id: id, iframe: iframe, remove: function () { iframe.remove(); } });
      }, { once: true });
      o.container.appendChild(iframe);
    });
  }
  window.StudioMap = { createMap: createMap };
})();
`;

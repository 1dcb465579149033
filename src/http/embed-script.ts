/**
 * /embed.js: turns each `<div data-scheduling-embed="<booking page URL>">` on a host's site into an iframe of that
 * page, sized from its `scheduling:resize` messages (accepted only from that iframe and our origin). Only booking
 * pages of the origin that served the script are framed. Plain ES2017, no dependencies: it runs on others' pages.
 */
export const EMBED_SCRIPT = `(function () {
  'use strict';
  var RESIZE = 'scheduling:resize';
  var script = document.currentScript;
  var home = script && script.src ? new URL(script.src).origin : null;

  function mount(element) {
    if (element.hasAttribute('data-scheduling-embed-mounted')) return;
    var url;
    try {
      url = new URL(element.getAttribute('data-scheduling-embed') || '', document.baseURI);
    } catch (error) {
      return;
    }
    if (url.origin !== home || url.pathname.indexOf('/book/') !== 0) return;
    url.searchParams.set('embed', '1');
    var frame = document.createElement('iframe');
    frame.src = url.href;
    frame.title = 'Booking page';
    frame.style.cssText = 'display:block;width:100%;height:640px;border:0;';
    element.setAttribute('data-scheduling-embed-mounted', '');
    element.appendChild(frame);
    window.addEventListener('message', function (event) {
      if (event.origin !== url.origin || event.source !== frame.contentWindow) return;
      var data = event.data;
      if (!data || data.type !== RESIZE || typeof data.height !== 'number' || !isFinite(data.height)) return;
      frame.style.height = Math.ceil(Math.min(Math.max(data.height, 100), 20000)) + 'px';
    });
  }

  function mountAll() {
    var elements = document.querySelectorAll('[data-scheduling-embed]');
    for (var i = 0; i < elements.length; i++) mount(elements[i]);
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', mountAll);
  else mountAll();
})();
`;

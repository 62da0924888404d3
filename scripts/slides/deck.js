Reveal.initialize({controls: true, progress: true, history: true, center: false,
  transition: "none", slideNumber: "c/t", width: {{ width }}, height: {{ height }},
  margin: 0, minScale: 0.2, maxScale: 2.0, plugins: [RevealNotes]});
var BAND = {{ band }};  // px at the bottom of a slide with figures: the slide number's
function fitSlide(slide) {
  var scale = Reveal.getScale();
  var images = Array.prototype.slice.call(slide.querySelectorAll('.jp-OutputArea-output img'));
  if (!images.length) return;
  images.forEach(function (img) {  // sized again once a picture is decoded
    if (!img.complete) img.addEventListener('load', function () { fitSlide(slide); },
      {once: true}); });
  var limit = Reveal.getConfig().height - BAND;
  var width = function (img) { return img.getBoundingClientRect().width / scale; };
  var height = function (img) { return img.getBoundingClientRect().height / scale; };
  images.forEach(function (img) { img.style.width = '100%'; });
  for (var round = 0; round < 4 && slide.scrollHeight > limit; round++) {
    var total = images.map(height).reduce(function (a, b) { return a + b; }, 0);
    var factor = Math.max(0.05, (total - (slide.scrollHeight - limit) - 1) / total);
    images.forEach(function (img) {
      img.style.width = Math.floor(width(img) * factor) + 'px'; });
  }
}
function showSlide(slide) {
  if (!slide) return;
  fitSlide(slide);  // at once, and again once the slide's formulas are typeset
  if (window.MathJax && MathJax.Hub) {
    MathJax.Hub.Queue(['Rerender', MathJax.Hub, slide], [fitSlide, slide]);
  } else { fitSlide(slide); }
}
Reveal.on('ready', function (event) { showSlide(event.currentSlide); });
Reveal.on('slidechanged', function (event) { showSlide(event.currentSlide); });

// Regenerates the image document fixtures (test/fixtures/documents/sample.png, sample.jpg): English text in DejaVu Sans.
import { writeFileSync } from 'node:fs';
import { GlobalFonts, createCanvas } from '@napi-rs/canvas';

GlobalFonts.registerFromPath('/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf', 'DejaVu Sans');
const out = new URL('../test/fixtures/documents/', import.meta.url);

function draw({ width, height, background, band, color, size, paragraphs }) {
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = background;
  ctx.fillRect(0, 0, width, height);
  if (band) {
    // a decorative band away from the text: must survive translation untouched
    ctx.fillStyle = band;
    ctx.fillRect(0, height - 40, width, 40);
  }
  ctx.fillStyle = color;
  ctx.font = `${size}px "DejaVu Sans"`;
  ctx.textBaseline = 'top';
  let y = 40;
  for (const lines of paragraphs) {
    for (const line of lines) {
      ctx.fillText(line, 40, y);
      y += Math.round(size * 1.3);
    }
    y += size * 2;
  }
  return canvas;
}

const paragraphs = [
  ['The house is very big and the', 'garden is green.'],
  ['The dog sleeps in the red car', 'near the old church.'],
];
writeFileSync(
  new URL('sample.png', out),
  await draw({ width: 640, height: 360, background: '#ffffff', color: '#000000', size: 32, paragraphs }).encode('png'),
);
writeFileSync(
  new URL('sample.jpg', out),
  await draw({ width: 640, height: 400, background: '#f3e3b0', band: '#2a6f97', color: '#1b2a5a', size: 30, paragraphs }).encode('jpeg', 90),
);

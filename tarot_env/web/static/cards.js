// A card's face, shared by the room's page (table.js) and the challenge's (challenge.js): an <svg> that
// uses the symbol of the code-drawn sprite (static/cards.svg, tarot_env/web/cards_svg.py). A name that is
// not of the notation draws nothing.

const SVG = "http://www.w3.org/2000/svg";

/** The face of card ``name`` from the French deck (``french``) or the Bolognese one. */
export function face(name, french) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 60 90");
  svg.setAttribute("class", "face");
  svg.setAttribute("aria-hidden", "true");
  if (/^[A-Z0-9]{1,3}$/.test(name)) {
    const use = document.createElementNS(SVG, "use");
    use.setAttribute("href", `/static/cards.svg#${french ? "fr" : "bo"}-${name}`);
    svg.append(use);
  }
  return svg;
}

#!/usr/bin/env node
// Browser test of the HTML report: runs every suite in configs/ and configs/fabrics/ (the fabric
// suites shortened to one repetition of kFabricDuration; plus this folder's small InfiniBand
// fabric, two suites with hostile names, and a baseline comparison with a planted regression)
// on the simulator, renders each to
// HTML with the qosbench CLI, opens the page from disk in headless Debian Chromium and checks it
// against the results JSON. How to run it: docs/testing.md; what it reads: the data attributes
// the report promises (qb/reports/html_report.hpp).
//
//   node report_check.mjs --qosbench BUILD/apps/qosbench/qosbench --configs configs \
//                         --artifacts BUILD/artifacts/browser
//   node report_check.mjs --html REPORT.html --json RESULTS.json --artifacts DIR \
//                         [--hostile NAME]   (one page; NAME must show as text)
//   --only LABEL checks one page (a config's file name without .toml, fabrics_NAME for
//   configs/fabrics/NAME.toml, ib_fabric_hops, hostile_0, hostile_1 or comparison).
//
// Exit 0: every page passed; 1: a check failed; 77: cannot run here (no Chromium, no
// node_modules), which CTest reports as skipped.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const kSkip = 77;
const kTopFlows = 20;
const kRelTolerance = 1e-9;
// Errors and Jain values sit near 0 and 1; below this absolute difference two values are equal.
const kAbsTolerance = 1e-12;
const kHostileNames = ['<script>alert(1)</script>', '"quoted" & <b>'];
// The fabric suites run one short repetition each, so that the 320-host fat trees stay within
// CI's time; the drawing does not depend on how long they ran.
const kFabricRunArgs = ['--duration', '2ms', '--repetitions', '1'];
// A small IB leaf-spine whose spine maps the SLs to other VLs (per-hop classes to check) until
// configs/fabrics has an IB suite of its own; it is run as the fabric suites are.
const kIbFabricSuite = new URL('ib_fabric_hops.toml', import.meta.url).pathname;
// The drawing's colour per load bucket (reports/src/fabric_layout.cpp, docs/report.md): 0 no
// flow, then < 25 %, < 50 %, < 75 %, < 90 %, from 90 % up.
const kLoadColours = ['#c4ccd4', '#9ecae1', '#4292c6', '#2166ac', '#053061', '#d55e00'];
const kMaxHopRows = 200;
const kMaxVictimPaths = 3;
// Exactly the flags of the issue, plus a fresh profile (launchPersistentContext) per run.
const kChromiumFlags = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run',
];

function parse_args(argv) {
  const args = { configs: null, qosbench: null, artifacts: null, html: null, json: null, only: null, hostile: null };
  for (let i = 0; i < argv.length; ++i) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in args) || i + 1 >= argv.length) {
      console.error(`report_check: unknown or incomplete argument '${argv[i]}'`);
      process.exit(2);
    }
    args[key] = argv[++i];
  }
  return args;
}

function skip(reason) {
  console.log(`SKIP: ${reason}`);
  process.exit(kSkip);
}

// ---------------------------------------------------------------- producing the reports

function run_cli(qosbench, cli_args) {
  try {
    return execFileSync(qosbench, cli_args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    // Exit 1 only says a gate failed: the results and the report are still written.
    if (e.status === 1) return e.stdout;
    throw new Error(`qosbench ${cli_args.join(' ')} exited ${e.status}: ${e.stderr || e.message}`);
  }
}

// A small two-leaf suite whose suite, leaf and flow names are markup. A latency gate on the
// hostile flow puts the name into a gate name too.
function hostile_suite(name) {
  const toml_string = (s) => JSON.stringify(s);  // a JSON string is a valid TOML basic string
  return `[suite]
name = ${toml_string(`hostile ${name}`)}
seed = 5
repetitions = 2
warmup = "1ms"
duration = "20ms"

[port]
rate = "100Gbps"
transport = "rocev2"
mtu = 4096

[[sched.node]]
name = "root"

[[sched.leaf]]
name = ${toml_string(`leaf ${name}`)}
parent = "root"
bw_share = 3

[[sched.leaf]]
name = "plain"
parent = "root"
bw_share = 1

[[flow]]
name = ${toml_string(name)}
leaf = ${toml_string(`leaf ${name}`)}
size = 4096
rate = "saturate"

[[flow]]
name = "plain-qp"
count = 2
leaf = "plain"
size = 4096
rate = "saturate"

[gates]
max_share_error = 0.01

[[gates.latency]]
flow = ${toml_string(name)}
p99 = "500us"
`;
}

// Every config plus the hostile suites, each rendered by `run --json --html` and, from the same
// JSON, by `report -o`. Returns [{label, json, html, hostile}].
function produce_reports(args, work_dir) {
  const suites = fs.readdirSync(args.configs)
    .filter((f) => f.endsWith('.toml'))
    .sort()
    .map((f) => ({ label: path.basename(f, '.toml'), file: path.join(args.configs, f), hostile: null }));
  const fabrics = path.join(args.configs, 'fabrics');
  if (fs.existsSync(fabrics)) {
    for (const f of fs.readdirSync(fabrics).filter((f) => f.endsWith('.toml')).sort()) {
      suites.push({ label: `fabrics_${path.basename(f, '.toml')}`, file: path.join(fabrics, f),
                    hostile: null, extra: kFabricRunArgs });
    }
  }
  suites.push({ label: 'ib_fabric_hops', file: kIbFabricSuite, hostile: null, extra: kFabricRunArgs });
  kHostileNames.forEach((name, i) => {
    const file = path.join(work_dir, `hostile_${i}.toml`);
    fs.writeFileSync(file, hostile_suite(name));
    suites.push({ label: `hostile_${i}`, file, hostile: name });
  });
  const reports = [];
  for (const suite of suites) {
    if (args.only && suite.label !== args.only) continue;
    const json = path.join(work_dir, `${suite.label}.json`);
    const html = path.join(work_dir, `${suite.label}.html`);
    const html_from_json = path.join(work_dir, `${suite.label}.report.html`);
    run_cli(args.qosbench, ['run', suite.file, ...(suite.extra ?? []), '--json', json, '--html', html, '--quiet']);
    run_cli(args.qosbench, ['report', json, '-o', html_from_json]);
    reports.push({ label: suite.label, json, html, hostile: suite.hostile });
    // Both commands render the same JSON; when the bytes differ the second page is checked too.
    if (!fs.readFileSync(html).equals(fs.readFileSync(html_from_json))) {
      reports.push({ label: `${suite.label}.report`, json, html: html_from_json, hostile: suite.hostile });
    }
  }
  if (!args.only || args.only === 'comparison') reports.push(produce_comparison(args, work_dir));
  return reports;
}

// A baseline comparison with a planted regression: the man-page suite with 5 repetitions as the
// baseline, and a copy of its results where one flow lost 10 % of its throughput in every
// repetition as the current run. The page is `report CURRENT --baseline BASELINE`; the rows are
// checked against `compare --json`.
const kPlantedFlow = 'g2-qp#0';
function produce_comparison(args, work_dir) {
  const suite = path.join(args.configs, 'mlx5_two_groups.toml');
  const baseline = path.join(work_dir, 'comparison_baseline.json');
  const current = path.join(work_dir, 'comparison_current.json');
  const compare_json = path.join(work_dir, 'comparison.compare.json');
  const html = path.join(work_dir, 'comparison.html');
  run_cli(args.qosbench, ['run', suite, '--repetitions', '5', '--json', baseline, '--quiet']);
  const results = JSON.parse(fs.readFileSync(baseline, 'utf8'));
  const flow = results.scenarios[0].flows.find((f) => f.name === kPlantedFlow);
  if (!flow) throw new Error(`${suite} has no flow ${kPlantedFlow} to plant a regression in`);
  flow.measured_bps *= 0.9;
  flow.measured_bps_reps = flow.measured_bps_reps.map((v) => v * 0.9);
  flow.error = flow.measured_bps / flow.expected_bps - 1;
  fs.writeFileSync(current, JSON.stringify(results, null, 2));
  run_cli(args.qosbench, ['compare', baseline, current, '--json', compare_json, '--quiet']);
  run_cli(args.qosbench, ['report', current, '--baseline', baseline, '-o', html]);
  return { label: 'comparison', json: current, html, hostile: null, comparison: compare_json };
}

// ---------------------------------------------------------------- comparing values

function close_enough(actual, expected) {
  if (expected === null || expected === undefined) return actual === null || actual === undefined;
  if (typeof actual !== 'number' || !Number.isFinite(actual)) return false;
  const diff = Math.abs(actual - expected);
  return diff <= kAbsTolerance || diff <= kRelTolerance * Math.max(Math.abs(actual), Math.abs(expected));
}

// A data attribute holding a number: '23976000000', '1e-05'. Absent -> undefined, '' -> NaN.
function attr_number(attrs, name) {
  if (!(name in attrs)) return undefined;
  const text = attrs[name].trim();
  return text === '' || text === 'null' ? null : Number(text);
}

// data-points of a series: a JSON array of numbers, of [x, y] pairs, or whitespace/comma
// separated numbers. Returns the y values, or null when unparseable.
function parse_points(text) {
  if (text === undefined) return null;
  const trimmed = text.trim();
  try {
    const value = JSON.parse(trimmed);
    if (Array.isArray(value)) {
      return value.map((p) => (Array.isArray(p) ? p[p.length - 1] : p));
    }
  } catch { /* not JSON: try a plain list below */ }
  const numbers = trimmed.split(/[\s,;]+/).filter(Boolean).map(Number);
  return numbers.every(Number.isFinite) ? numbers : null;
}

class Checker {
  constructor(label) {
    this.label = label;
    this.failures = [];
    this.checks = 0;
  }
  expect(condition, message) {
    ++this.checks;
    if (!condition) this.failures.push(message);
    return condition;
  }
  number(attrs, name, expected, what) {
    const actual = attr_number(attrs, name);
    this.expect(close_enough(actual, expected),
                `${what}: data-${name} = ${attrs[name]} but the results say ${expected}`);
  }
  bool(attrs, name, expected, what) {
    this.expect(attrs[name] === String(expected),
                `${what}: data-${name} = ${attrs[name]} but the results say ${expected}`);
  }
  series(attrs, expected, what) {
    const points = parse_points(attrs.points);
    if (!this.expect(points !== null, `${what}: data-points '${String(attrs.points).slice(0, 60)}' is not a list of numbers`)) return;
    if (points.length === 1 && expected.length !== 1) {
      // A bare count.
      this.expect(points[0] === expected.length, `${what}: data-points = ${points[0]}, expected ${expected.length} points`);
      return;
    }
    if (!this.expect(points.length === expected.length,
                     `${what}: ${points.length} points, the results have ${expected.length}`)) return;
    const bad = points.findIndex((p, i) => !close_enough(p, expected[i]));
    this.expect(bad < 0, `${what}: point ${bad} is ${points[bad]}, the results say ${expected[bad]}`);
  }
}

// ---------------------------------------------------------------- reading the page

// Everything the checks need, read from the DOM in one evaluate call.
function read_dom(hostile) {
  const data = (el) => {
    const out = {};
    for (const a of el.attributes) if (a.name.startsWith('data-')) out[a.name.slice(5)] = a.value;
    return out;
  };
  const visible = (el) => {
    for (let e = el; e; e = e.parentElement) {
      if (['SCRIPT', 'STYLE', 'TITLE', 'TEMPLATE'].includes(e.tagName)) return false;
    }
    const style = getComputedStyle(el);
    return el.getClientRects().length > 0 && style.visibility !== 'hidden' && style.display !== 'none';
  };
  // Text nodes that contain the hostile string verbatim and are on screen.
  const visible_text_with = (needle) => {
    let count = 0;
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.nodeValue.includes(needle) && visible(n.parentElement)) ++count;
    }
    return count;
  };
  const all = (root, selector) => [...root.querySelectorAll(selector)].map(data);
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height };
  };
  // Pairs of axis texts (titles, tick labels, keys) of one chart whose boxes overlap: measured
  // on the rendered page, so a rotated title running into its tick labels shows here.
  const kOverlapPx = 0.5;
  const axis_overlaps = (root) => {
    const found = [];
    for (const svg of root.querySelectorAll('svg.chart')) {
      const texts = [...svg.querySelectorAll('g.axis text')].filter((t) => t.textContent.trim() !== '');
      const boxes = texts.map(box);
      for (let i = 0; i < texts.length; ++i) {
        for (let j = i + 1; j < texts.length; ++j) {
          const a = boxes[i], b = boxes[j];
          const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
          const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
          if (x > kOverlapPx && y > kOverlapPx) {
            found.push(`${svg.getAttribute('class')}: '${texts[i].textContent}' and '${texts[j].textContent}'`);
          }
        }
      }
    }
    return found;
  };
  // The fabric drawing: nodes with their drawn size, links with each half's channel, bucket
  // and rendered stroke colour, the victim marks and the per-hop class table.
  const read_fabric = (root) => {
    const svg = root.querySelector('svg.fabric-topology');
    if (!svg) return null;
    const svg_box = box(svg);
    const rgb_hex = (c) => {
      const m = c.match(/rgba?\((\d+),\s*(\d+),\s*(\d+)/);
      return m ? '#' + m.slice(1, 4).map((v) => Number(v).toString(16).padStart(2, '0')).join('') : c;
    };
    return {
      attrs: data(svg),
      svg_box,
      nodes: [...svg.querySelectorAll('g.fabric-node')].map((g) => {
        const b = box(g.querySelector('rect'));
        return { ...data(g), width: b.width, height: b.height,
                 inside: b.left >= svg_box.left - 0.5 && b.right <= svg_box.right + 0.5 &&
                         b.top >= svg_box.top - 0.5 && b.bottom <= svg_box.bottom + 0.5 };
      }),
      links: [...svg.querySelectorAll('g.fabric-link')].map((g) => ({
        ...data(g),
        channels: [...g.querySelectorAll('path.channel')].map((p) => ({
          ...data(p), stroke: rgb_hex(getComputedStyle(p).stroke), length: p.getTotalLength(),
        })),
      })),
      victim_markers: all(svg, 'g.victim-marker'),
      victim_halos: all(svg, 'path.victim-halo'),
      victim_paths: all(svg, 'path.victim-path'),
      hop_rows: [...root.querySelectorAll('table.hop-classes tr.hop-path')].map((tr) => ({
        ...data(tr), hops: all(tr, 'span.hop'),
      })),
      link_rows: root.querySelectorAll('table.fabric-links tbody tr').length,
      loose_nodes: root.querySelectorAll('g.fabric-node').length,
    };
  };
  const verdict = document.querySelector('#verdict');
  const metadata = document.querySelector('#metadata');
  return {
    body: data(document.body),
    verdict: verdict ? data(verdict) : null,
    metadata_text: metadata ? metadata.innerText : null,
    scripts_with_payload: [...document.scripts].filter((s) => /alert\(/.test(s.textContent)).length,
    external_refs: [...document.querySelectorAll('[src], [href], [srcset], [xlink\\:href]')]
      .map((e) => e.getAttribute('src') || e.getAttribute('href') || e.getAttribute('srcset') || e.getAttribute('xlink:href'))
      .filter((u) => u && !u.startsWith('#') && !u.startsWith('data:')),
    hostile_visible: hostile ? visible_text_with(hostile) : 0,
    page_width: document.documentElement.scrollWidth,
    comparison: document.querySelector('section#comparison')
      ? [...document.querySelectorAll('section#comparison tr.metric')].map(data) : null,
    scenarios: [...document.querySelectorAll('section.scenario')].map((s) => ({
      attrs: data(s),
      text: s.innerText,
      gates: all(s, 'tr.gate'),
      tree_nodes: all(s, 'svg.tree g.tree-node'),
      flow_bars: all(s, 'svg.flow-bars g.flow-bar'),
      group_bars: all(s, 'svg.group-bars g.group-bar'),
      series: all(s, 'svg.throughput path.series'),
      spectra: all(s, 'svg.latency-spectrum path.spectrum'),
      jain: all(s, 'svg.jain path.jain-series'),
      host_trees: [...s.querySelectorAll('figure.host-tree')].map((f) => ({
        attrs: data(f), nodes: all(f, 'svg.tree g.tree-node'),
      })),
      arbitration: [...s.querySelectorAll('figure.arbitration')].map((f) => {
        const svg = f.querySelector('svg.chart');
        return {
          attrs: data(f),
          svg_box: svg ? box(svg) : null,
          tcs: all(f, 'svg.ets g.ets-tc'),
          priorities: all(f, 'svg.ets g.ets-priority'),
          prio_edges: all(f, 'svg.ets path.prio-edge'),
          sl2vl: all(f, 'svg.vlarb g.sl2vl-entry'),
          entries: all(f, 'svg.vlarb g.vlarb-entry'),
          vls: all(f, 'svg.vlarb g.vl-class'),
          // Each class row and VLArb entry drawn with a size (not collapsed or hidden).
          unrendered: [...f.querySelectorAll('g.ets-tc, g.vlarb-entry, g.vl-class, g.sl2vl-entry')]
            .filter((g) => { const b = box(g); return !(b.width > 0 && b.height > 0); }).length,
        };
      }),
      jain_gates: all(s, 'svg.jain line.jain-gate'),
      fabric: read_fabric(s),
      // How the overlay lines really render (computed style), to tell the baseline from the
      // expected lines and to hold the legend keys to the lines they name.
      line_styles: Object.fromEntries([
        ['baseline', 'svg.throughput path.baseline-series'],
        ['expected', 'svg.throughput line.expected'],
        ['baseline_key', 'li.baseline-key line'],
        ['expected_key', 'li.expected-key line'],
      ].map(([key, selector]) => {
        const el = s.querySelector(selector);
        if (!el) return [key, null];
        const st = getComputedStyle(el);
        return [key, { dasharray: st.strokeDasharray, opacity: Number(st.opacity), width: parseFloat(st.strokeWidth) }];
      })),
      baseline_series: all(s, 'svg.throughput path.baseline-series'),
      baseline_markers: all(s, 'svg.group-bars path.baseline-marker, svg.flow-bars path.baseline-marker'),
      axis_overlaps: axis_overlaps(s),
      // The same classes anywhere in the section, to catch elements outside their svg.
      loose: {
        flow_bars: s.querySelectorAll('g.flow-bar').length,
        group_bars: s.querySelectorAll('g.group-bar').length,
        series: s.querySelectorAll('path.series').length,
        spectra: s.querySelectorAll('path.spectrum').length,
        tree_nodes: s.querySelectorAll('g.tree-node').length,
      },
    })),
  };
}

function check_scenario(c, dom, sc) {
  const where = `scenario '${sc.name}'`;
  c.expect(Number(dom.attrs['flows-total']) === sc.flows.length,
           `${where}: data-flows-total = ${dom.attrs['flows-total']}, the results have ${sc.flows.length} flows`);

  // Gates: one row each, in any order, matched by name.
  c.expect(dom.gates.length === sc.gates.length, `${where}: ${dom.gates.length} tr.gate, the results have ${sc.gates.length} gates`);
  for (const gate of sc.gates) {
    const row = dom.gates.find((g) => g.gate === gate.name);
    if (!c.expect(row, `${where}: no tr.gate for gate '${gate.name}'`)) continue;
    c.bool(row, 'passed', gate.passed, `gate '${gate.name}'`);
    c.number(row, 'value', gate.value, `gate '${gate.name}'`);
    c.number(row, 'threshold', gate.threshold, `gate '${gate.name}'`);
  }

  // Tree: one node per tree element; with several hosts, one tree per host instead.
  const check_tree = (nodes, tree, label) => {
    c.expect(nodes.length === tree.length,
             `${where}: ${nodes.length} g.tree-node${label}, the tree has ${tree.length} elements`);
    for (const node of tree) {
      const el = nodes.find((n) => n.name === node.name);
      if (!c.expect(el, `${where}: no g.tree-node for '${node.name}'${label}`)) continue;
      const what = `tree node '${node.name}'${label}`;
      c.expect(el.kind === node.kind, `${what}: data-kind = ${el.kind}, the results say ${node.kind}`);
      c.number(el, 'expected-bps', node.expected_bps, what);
      c.number(el, 'measured-bps', node.measured_bps, what);
      if (node.cap_bps !== null && node.cap_bps !== undefined) c.number(el, 'cap-bps', node.cap_bps, what);
      else c.expect(!('cap-bps' in el), `${what}: has data-cap-bps but is not capped`);
    }
  };
  const host_trees = sc.host_trees ?? [];
  c.expect(dom.host_trees.length === host_trees.length,
           `${where}: ${dom.host_trees.length} figure.host-tree, the results have ${host_trees.length} host trees`);
  if (host_trees.length === 0) {
    check_tree(dom.tree_nodes, sc.tree, '');
  } else {
    c.expect(dom.tree_nodes.length === host_trees.length * sc.tree.length,
             `${where}: ${dom.tree_nodes.length} g.tree-node, expected ${sc.tree.length} per host`);
    for (const ht of host_trees) {
      const fig = dom.host_trees.find((f) => f.attrs.host === String(ht.host));
      if (c.expect(fig, `${where}: no figure.host-tree for host ${ht.host}`)) {
        check_tree(fig.nodes, ht.tree, ` of host ${ht.host}`);
      }
    }
  }

  check_arbitration(c, dom, sc, where);
  check_fabric(c, dom.fabric, sc, where);

  // Flow bars: the top min(flows, 20) by |error|, sorted.
  const shown = Math.min(sc.flows.length, kTopFlows);
  c.expect(dom.flow_bars.length === shown, `${where}: ${dom.flow_bars.length} g.flow-bar, expected ${shown}`);
  const flows = new Map(sc.flows.map((f) => [f.name, f]));
  const shown_names = new Set();
  let previous = Infinity;
  for (const bar of dom.flow_bars) {
    const flow = flows.get(bar.flow);
    if (!c.expect(flow, `${where}: g.flow-bar for unknown flow '${bar.flow}'`)) continue;
    shown_names.add(flow.name);
    const what = `flow bar '${flow.name}'`;
    c.expect(bar.group === flow.group, `${what}: data-group = ${bar.group}, the results say ${flow.group}`);
    c.number(bar, 'expected-bps', flow.expected_bps, what);
    c.number(bar, 'measured-bps', flow.measured_bps, what);
    c.number(bar, 'error', flow.error, what);
    c.expect(Math.abs(flow.error) <= previous, `${what}: bars are not sorted by |error| descending`);
    previous = Math.abs(flow.error);
  }
  c.expect(shown_names.size === dom.flow_bars.length, `${where}: a flow has two bars`);
  const worst_hidden = Math.max(0, ...sc.flows.filter((f) => !shown_names.has(f.name)).map((f) => Math.abs(f.error)));
  c.expect(dom.flow_bars.length === 0 || worst_hidden <= previous,
           `${where}: a flow with |error| ${worst_hidden} is hidden while one with ${previous} is shown`);
  if (sc.flows.length > kTopFlows) {
    const note = `top ${kTopFlows} of ${sc.flows.length} flows`;
    c.expect(dom.text.includes(note), `${where}: the section does not say "${note}"`);
  }

  // Group bars: every group.
  c.expect(dom.group_bars.length === sc.groups.length,
           `${where}: ${dom.group_bars.length} g.group-bar, the results have ${sc.groups.length} groups`);
  for (const group of sc.groups) {
    const bar = dom.group_bars.find((b) => b.group === group.name);
    if (!c.expect(bar, `${where}: no g.group-bar for group '${group.name}'`)) continue;
    const what = `group bar '${group.name}'`;
    c.number(bar, 'expected-bps', group.expected_bps, what);
    c.number(bar, 'measured-bps', group.measured_bps, what);
    c.number(bar, 'error', group.error, what);
  }

  // Throughput series: every group, and the flows shown as bars.
  c.expect(dom.series.length === sc.groups.length + shown,
           `${where}: ${dom.series.length} path.series, expected ${sc.groups.length} groups + ${shown} flows`);
  for (const s of dom.series) {
    const subject = s.kind === 'group' ? sc.groups.find((g) => g.name === s.subject)
                  : s.kind === 'flow' && shown_names.has(s.subject) ? flows.get(s.subject) : null;
    if (!c.expect(subject, `${where}: path.series of ${s.kind} '${s.subject}' matches nothing shown`)) continue;
    c.series(s, subject.series_bps, `series of ${s.kind} '${s.subject}'`);
  }

  // Latency spectrum: one path per group and basis.
  c.expect(dom.spectra.length === 2 * sc.groups.length,
           `${where}: ${dom.spectra.length} path.spectrum, expected ${2 * sc.groups.length} (groups x 2 bases)`);
  for (const group of sc.groups) {
    for (const [basis, key] of [['scheduled', 'latency_ns'], ['sent', 'latency_from_sent_ns']]) {
      const p = dom.spectra.find((x) => x.subject === group.name && x.basis === basis);
      if (!c.expect(p, `${where}: no path.spectrum for group '${group.name}', basis ${basis}`)) continue;
      c.number(p, 'p99-ns', group[key]?.p99 ?? null, `spectrum of '${group.name}' (${basis})`);
    }
  }

  // Jain over time.
  if (c.expect(dom.jain.length === 1, `${where}: ${dom.jain.length} path.jain-series, expected 1`)) {
    c.series(dom.jain[0], sc.fairness.jain_series, `${where}: Jain series`);
  }

  // The min_jain gate drawn on the Jain chart at its threshold when the suite has one.
  const min_jain = (sc.gates || []).find((g) => g.name === 'min_jain');
  c.expect(dom.jain_gates.length === (min_jain ? 1 : 0),
           `${where}: ${dom.jain_gates.length} line.jain-gate, expected ${min_jain ? 1 : 0}`);
  if (min_jain && dom.jain_gates.length === 1) {
    c.number(dom.jain_gates[0], 'min-jain', min_jain.threshold, `${where}: min_jain gate line`);
  }

  // Axis titles, tick labels and keys of every chart clear of each other (DOM boxes).
  c.expect(dom.axis_overlaps.length === 0, `${where}: overlapping axis texts: ${dom.axis_overlaps.slice(0, 4).join('; ')}`);

  // Nothing with the contract's classes outside its chart.
  for (const [key, count] of Object.entries(dom.loose)) {
    c.expect(count === dom[key].length, `${where}: ${count - dom[key].length} ${key} elements outside their svg`);
  }
}

// The ports' arbitration: one figure per port of the results, one row per TC (ETS) with its
// TSA, ETS share and cap, one edge per priority, one cell per SL and per VLArb entry in
// programmed order, and at the port that decides the shares one row per class with its figures.
function check_arbitration(c, dom, sc, where) {
  const ports = sc.arbitration ?? [];
  c.expect(dom.arbitration.length === ports.length,
           `${where}: ${dom.arbitration.length} figure.arbitration, the results have ${ports.length} arbitrating ports`);
  ports.forEach((port, i) => {
    const fig = dom.arbitration[i];
    if (!fig) return;
    const what = `${where}: ${port.port} ${port.kind}`;
    c.expect(fig.attrs.port === port.port && fig.attrs.kind === port.kind,
             `${what}: figure ${i} is ${fig.attrs.port} ${fig.attrs.kind}`);
    c.bool(fig.attrs, 'decides', port.decides, what);
    c.expect(fig.svg_box && fig.svg_box.width > 100 && fig.svg_box.height > 50,
             `${what}: its svg is not rendered with a size (${JSON.stringify(fig.svg_box)})`);
    c.expect(fig.unrendered === 0, `${what}: ${fig.unrendered} class rows or table entries have no size on the page`);
    let rows = [];
    if (port.kind === 'ets') {
      rows = fig.tcs;
      c.expect(fig.tcs.length === port.tcs.length, `${what}: ${fig.tcs.length} g.ets-tc, the port has ${port.tcs.length} TCs`);
      for (const tc of port.tcs) {
        const row = fig.tcs.find((r) => r.class === `TC${tc.tc}`);
        if (!c.expect(row, `${what}: no g.ets-tc for TC${tc.tc}`)) continue;
        c.expect(row.tsa === tc.tsa, `${what} TC${tc.tc}: data-tsa = ${row.tsa}, the results say ${tc.tsa}`);
        c.number(row, 'ets-percent', tc.ets_percent, `${what} TC${tc.tc}`);
        if (tc.max_rate_bps !== null) c.number(row, 'max-rate-bps', tc.max_rate_bps, `${what} TC${tc.tc}`);
        else c.expect(!('max-rate-bps' in row), `${what} TC${tc.tc}: has a cap the results do not`);
      }
      c.expect(fig.priorities.length === port.prio_tc.length && fig.prio_edges.length === port.prio_tc.length,
               `${what}: ${fig.priorities.length} priorities and ${fig.prio_edges.length} edges, prio_tc has ${port.prio_tc.length}`);
      port.prio_tc.forEach((tc, p) => {
        const edge = fig.prio_edges.find((e) => e.priority === String(p));
        c.expect(edge && edge.tc === String(tc), `${what}: priority ${p} is not drawn to TC${tc}`);
      });
    } else {
      rows = fig.vls;
      c.expect(fig.sl2vl.length === port.sl2vl.length, `${what}: ${fig.sl2vl.length} g.sl2vl-entry, sl2vl has ${port.sl2vl.length}`);
      port.sl2vl.forEach((vl, sl) => {
        const cell = fig.sl2vl.find((e) => e.sl === String(sl));
        c.expect(cell && cell.vl === String(vl), `${what}: SL${sl} is not drawn to VL${vl}`);
      });
      for (const [table, entries] of [['high', port.vlarb_high], ['low', port.vlarb_low]]) {
        const drawn = fig.entries.filter((e) => e.table === table);
        c.expect(drawn.length === entries.length, `${what}: ${drawn.length} ${table} g.vlarb-entry, the table has ${entries.length}`);
        entries.forEach((e, k) => {
          const cell = drawn.find((d) => d.index === String(k));
          c.expect(cell && cell.vl === String(e.vl) && cell.weight === String(e.weight),
                   `${what}: ${table} entry ${k} is not VL${e.vl} weight ${e.weight}`);
        });
      }
    }
    if (!port.decides) return;
    for (const cls of sc.classes ?? []) {
      const drawn = rows.filter((r) => r.class === cls.name);
      if (!c.expect(drawn.length === 1, `${what}: ${drawn.length} rows for class ${cls.name}, expected 1`)) continue;
      c.number(drawn[0], 'expected-bps', cls.expected_bps, `${what} ${cls.name}`);
      c.number(drawn[0], 'measured-bps', cls.measured_bps, `${what} ${cls.name}`);
    }
  });
}

// The bucket of a channel's load as the drawing colours it: the busy time when the results have
// one for any channel, else the measured load over the rate; 0 when no flow crosses it.
function load_bucket(result, busy) {
  if (!result) return 0;
  const load = busy ? result.utilisation : (result.rate_bps > 0 ? result.measured_bps / result.rate_bps : 0);
  if (!(load >= 0.25)) return 1;
  if (load < 0.5) return 2;
  if (load < 0.75) return 3;
  if (load < 0.9) return 4;
  return 5;
}

// A [topology] scenario: one drawn node per host and switch, one drawn link per link with a half
// per channel coloured by its load bucket, every victim's paused channel marked, and where the
// ports have classes (IB always) each flow's class at every hop.
function check_fabric(c, fabric, sc, where) {
  const t = sc.topology;
  if (!t) {
    c.expect(fabric === null, `${where}: a fabric drawing without a topology in the results`);
    return;
  }
  if (!c.expect(fabric, `${where}: no svg.fabric-topology although the results have a topology`)) return;
  c.expect(fabric.svg_box.width > 300 && fabric.svg_box.height > 100,
           `${where}: the fabric drawing is not rendered with a size (${JSON.stringify(fabric.svg_box)})`);
  // Nodes.
  c.expect(fabric.nodes.length === t.nodes.length,
           `${where}: ${fabric.nodes.length} g.fabric-node, the topology has ${t.nodes.length} nodes`);
  c.expect(fabric.loose_nodes === fabric.nodes.length, `${where}: g.fabric-node outside the drawing`);
  const drawn_nodes = new Map(fabric.nodes.map((n) => [n.node, n]));
  for (const node of t.nodes) {
    const el = drawn_nodes.get(node.name);
    if (!c.expect(el, `${where}: node '${node.name}' is not drawn`)) continue;
    c.expect(el.kind === node.kind, `${where}: node '${node.name}' drawn as ${el.kind}, the results say ${node.kind}`);
    c.expect(el.width > 0 && el.height > 0 && el.inside,
             `${where}: node '${node.name}' has no size or lies outside the drawing (${el.width}x${el.height})`);
  }
  // Links and their channels' colours.
  c.expect(fabric.links.length === t.links.length,
           `${where}: ${fabric.links.length} g.fabric-link, the topology has ${t.links.length} links`);
  const busy = (sc.links ?? []).some((l) => l.utilisation > 0);
  c.expect(fabric.attrs['load-basis'] === (busy ? 'busy' : 'measured'),
           `${where}: data-load-basis = ${fabric.attrs['load-basis']}, expected ${busy ? 'busy' : 'measured'}`);
  const results = new Map((sc.links ?? []).map((l) => [l.name, l]));
  const drawn_links = new Map(fabric.links.map((l) => [l.channels.map((ch) => ch.channel).join('|'), l]));
  let wrong_colours = 0;
  for (const link of t.links) {
    const el = drawn_links.get(link.channels.join('|'));
    if (!c.expect(el, `${where}: link ${link.ends.join(' - ')} (${link.channels.join(', ')}) is not drawn with its two channels`)) continue;
    c.expect(el.a === link.ends[0] && el.b === link.ends[1],
             `${where}: link ${link.channels[0]} drawn between ${el.a} and ${el.b}, the results say ${link.ends.join(' and ')}`);
    c.number(el, 'rate-bps', link.rate_bps, `${where}: link ${link.channels[0]}`);
    el.channels.forEach((ch) => {
      const bucket = load_bucket(results.get(ch.channel), busy);
      const ok = Number(ch.bucket) === bucket && ch.stroke === kLoadColours[bucket] && ch.length > 0;
      if (!ok) {
        ++wrong_colours;
        c.expect(false, `${where}: channel ${ch.channel} drawn in bucket ${ch.bucket} as ${ch.stroke} ` +
                        `(length ${ch.length}), its load puts it in bucket ${bucket} (${kLoadColours[bucket]})`);
      }
    });
  }
  c.expect(wrong_colours === 0, `${where}: ${wrong_colours} channels coloured off their load bucket`);
  c.expect(fabric.link_rows === (sc.links ?? []).length,
           `${where}: ${fabric.link_rows} rows in table.fabric-links, the results have ${(sc.links ?? []).length} links`);
  // Victims: each paused channel marked once, naming its victims; the worst victims' paths.
  const victims = sc.victims ?? [];
  const paused = [...new Set(victims.map((v) => v.paused_at))];
  c.expect(fabric.victim_markers.length === paused.length,
           `${where}: ${fabric.victim_markers.length} g.victim-marker, the victims were paused at ${paused.length} channels`);
  c.expect(fabric.victim_halos.length === paused.length,
           `${where}: ${fabric.victim_halos.length} path.victim-halo, expected ${paused.length}`);
  for (const v of victims) {
    const marker = fabric.victim_markers.find((m) => m.channel === v.paused_at);
    if (!c.expect(marker, `${where}: victim '${v.flow}': its paused channel ${v.paused_at} is not marked`)) continue;
    let flows = [];
    try { flows = JSON.parse(marker.flows); } catch { /* checked below */ }
    c.expect(flows.includes(v.flow), `${where}: the marker at ${v.paused_at} does not name victim '${v.flow}' (${marker.flows})`);
  }
  c.expect(fabric.victim_paths.length === Math.min(victims.length, kMaxVictimPaths),
           `${where}: ${fabric.victim_paths.length} path.victim-path, expected ${Math.min(victims.length, kMaxVictimPaths)}`);
  for (const p of fabric.victim_paths) {
    c.expect(victims.some((v) => v.flow === p.flow), `${where}: path.victim-path of '${p.flow}', which is no victim`);
  }
  // Per-hop classes: every flow's hops in order with its class there (IB always; Ethernet when
  // some hop has a class).
  const with_classes = sc.transport === 'ib' ||
    t.paths.some((p) => p.hops.some((h) => h.class !== 'port'));
  const rows = with_classes ? Math.min(t.paths.length, kMaxHopRows) : 0;
  c.expect(fabric.hop_rows.length === rows,
           `${where}: ${fabric.hop_rows.length} tr.hop-path, expected ${rows}`);
  for (let i = 0; i < Math.min(rows, fabric.hop_rows.length); ++i) {
    const path = t.paths[i], row = fabric.hop_rows[i];
    const what = `${where}: hop classes of '${path.flow}'`;
    c.expect(row.flow === path.flow, `${what}: row ${i} is '${row.flow}'`);
    c.expect(row.sl === String(path.sl), `${what}: data-sl = ${row.sl}, the results say ${path.sl}`);
    c.expect(row.hops.length === path.hops.length, `${what}: ${row.hops.length} hops, the results have ${path.hops.length}`);
    path.hops.forEach((hop, h) => {
      const cell = row.hops[h];
      c.expect(cell && cell.channel === hop.channel && cell.class === hop.class,
               `${what}: hop ${h} is ${cell ? `${cell.channel} ${cell.class}` : 'missing'}, the results say ${hop.channel} ${hop.class}`);
    });
  }
}

// With a baseline: its series behind every group and every flow shown, and a marker at its
// error on every group and flow bar; without one, none of them.
function check_baseline_overlay(c, dom, sc, has_baseline) {
  const where = `scenario '${sc.name}'`;
  const shown = Math.min(sc.flows.length, kTopFlows);
  const want = has_baseline ? sc.groups.length + shown : 0;
  c.expect(dom.baseline_series.length === want,
           `${where}: ${dom.baseline_series.length} path.baseline-series, expected ${want}`);
  c.expect(dom.baseline_markers.length === want,
           `${where}: ${dom.baseline_markers.length} path.baseline-marker, expected ${want}`);
  if (!has_baseline) return;
  // The baseline reads apart from the expected lines: other dashes, and fainter or wider; the
  // legend draws each key as its lines render.
  const st = dom.line_styles;
  if (!c.expect(st.baseline && st.expected && st.baseline_key && st.expected_key,
                `${where}: a baseline or expected line or legend key is missing: ${JSON.stringify(st)}`)) return;
  c.expect(st.baseline.dasharray !== st.expected.dasharray,
           `${where}: baseline and expected lines share the dashes ${st.baseline.dasharray}`);
  c.expect(st.baseline.opacity < st.expected.opacity - 0.2 || st.baseline.width > 1.5 * st.expected.width,
           `${where}: baseline line (opacity ${st.baseline.opacity}, width ${st.baseline.width}) not apart from ` +
           `expected (opacity ${st.expected.opacity}, width ${st.expected.width})`);
  for (const key of ['baseline', 'expected']) {
    const line = st[key], legend = st[`${key}_key`];
    c.expect(line.dasharray === legend.dasharray && line.opacity === legend.opacity && line.width === legend.width,
             `${where}: the ${key} legend key (${JSON.stringify(legend)}) is not drawn as its lines (${JSON.stringify(line)})`);
  }
}

// Every compared metric is a row with the figures of `compare --json`, and the planted
// regression is flagged.
function check_comparison(c, rows, comparison) {
  if (!c.expect(rows !== null, 'no section#comparison although the report has a baseline')) return;
  c.expect(rows.length === comparison.metrics.length,
           `${rows.length} tr.metric, the comparison has ${comparison.metrics.length} metrics`);
  for (const m of comparison.metrics) {
    const what = `comparison row ${m.kind} '${m.subject}' ${m.metric}`;
    const row = rows.find((r) => r.scenario === m.scenario && r.kind === m.kind &&
                                 r.subject === m.subject && r.metric === m.metric);
    if (!c.expect(row, `${what}: missing`)) continue;
    c.number(row, 'change', m.change, what);
    c.number(row, 'p-value', m.p_value, what);
    c.bool(row, 'regression', m.regression, what);
  }
  const planted = rows.find((r) => r.kind === 'flow' && r.subject === kPlantedFlow && r.metric === 'measured_bps');
  c.expect(planted && planted.regression === 'true' && close_enough(Number(planted.change), -0.1),
           `the planted 10 % regression of ${kPlantedFlow} is not shown as a regression of -10 %`);
}

// ---------------------------------------------------------------- driving the browser

async function check_report(context, report, artifacts) {
  const c = new Checker(report.label);
  const results = JSON.parse(fs.readFileSync(report.json, 'utf8'));
  const file_url = pathToFileURL(path.resolve(report.html)).href;
  const page = await context.newPage();
  const events = [];
  const on_request = (r) => { if (r.url() !== file_url) events.push(`network request: ${r.url()}`); };
  context.on('request', on_request);
  page.on('console', (m) => {
    if (['error', 'warning', 'assert'].includes(m.type())) events.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => events.push(`page error: ${e.message}`));
  page.on('dialog', async (d) => { events.push(`dialog (${d.type()}): ${d.message()}`); await d.dismiss(); });
  page.on('popup', (p) => events.push(`popup: ${p.url()}`));

  await page.goto(file_url, { waitUntil: 'load' });
  // Give timers a chance to fire (an injected setTimeout(alert) would show here).
  await page.waitForTimeout(300);
  const dom = await page.evaluate(read_dom, report.hostile);
  const png = path.join(artifacts, `${report.label}.png`);
  await page.screenshot({ path: png, fullPage: true });
  // The fabric drawing on its own, to look at without scrolling the page.
  const fabric_figures = await page.$$('figure.fabric');
  for (let i = 0; i < fabric_figures.length; ++i) {
    await fabric_figures[i].screenshot({ path: path.join(artifacts, `${report.label}.fabric${i || ''}.png`) });
  }
  // The page next to its screenshot, to open by hand when a check fails.
  const html_copy = path.join(artifacts, `${report.label}.html`);
  if (path.resolve(html_copy) !== path.resolve(report.html)) fs.copyFileSync(report.html, html_copy);
  context.off('request', on_request);
  await page.close();

  for (const e of events) c.expect(false, e);
  c.expect(dom.body.schema === results.schema, `body data-schema = ${dom.body.schema}, expected ${results.schema}`);
  c.expect(dom.body.suite === results.suite, `body data-suite = ${dom.body.suite}, expected ${results.suite}`);
  // With a baseline the verdict also fails on a regression, as `run --baseline` does.
  const comparison = report.comparison ? JSON.parse(fs.readFileSync(report.comparison, 'utf8')) : null;
  const passed = results.passed && !(comparison && comparison.regressed);
  if (c.expect(dom.verdict, 'no #verdict')) {
    c.bool(dom.verdict, 'passed', passed, '#verdict');
    c.bool(dom.verdict, 'complete', results.complete, '#verdict');
  }
  if (c.expect(dom.metadata_text !== null, 'no #metadata')) {
    for (const key of ['driver', 'host', 'tool_version', 'config_hash', 'date']) {
      c.expect(dom.metadata_text.includes(results[key]), `#metadata does not show ${key} '${results[key]}'`);
    }
  }
  c.expect(dom.external_refs.length === 0, `references outside the page: ${dom.external_refs.slice(0, 5).join(' ')}`);
  c.expect(dom.scripts_with_payload === 0, 'a <script> element contains alert(');
  if (report.hostile) {
    c.expect(dom.hostile_visible > 0, `the hostile name ${report.hostile} is not visible as text`);
  }
  c.expect(dom.scenarios.length === results.scenarios.length,
           `${dom.scenarios.length} section.scenario, the results have ${results.scenarios.length}`);
  // The textbook victim suite names its victim (docs/semantics.md, "Victims"): the page must
  // show it, whatever else the run measured.
  if (report.label.startsWith('fabrics_pfc_victim') && !report.label.includes('dcqcn')) {
    const victims = results.scenarios.flatMap((sc) => sc.victims ?? []);
    c.expect(victims.some((v) => v.flow === 's-to-v' && v.paused_at === 's:1->leafA:1'),
             `the PFC victim suite's results do not name s-to-v paused at s:1->leafA:1: ${JSON.stringify(victims)}`);
  }
  if (report.label.startsWith('ib_fabric_hops')) {
    c.expect(results.scenarios.every((sc) => sc.transport === 'ib' && sc.topology),
             'the IB fabric suite has no IB topology in its results');
  }
  for (const sc of results.scenarios) {
    const section = dom.scenarios.find((s) => s.attrs.scenario === sc.name);
    if (c.expect(section, `no section.scenario for '${sc.name}'`)) {
      check_scenario(c, section, sc);
      check_baseline_overlay(c, section, sc, Boolean(report.comparison));
    }
  }
  if (comparison) check_comparison(c, dom.comparison, comparison);
  else c.expect(dom.comparison === null, 'a section#comparison without a baseline');
  return { checker: c, png, page_width: dom.page_width };
}

async function main() {
  const args = parse_args(process.argv.slice(2));
  const chromium_path = process.env.QB_CHROMIUM || '/usr/bin/chromium';
  if (!fs.existsSync(chromium_path)) skip(`${chromium_path} is missing (scripts/setup.sh installs Debian's chromium)`);
  let playwright;
  try {
    playwright = await import('playwright-core');
  } catch {
    skip('playwright-core is not installed in tests/browser/node_modules (scripts/setup.sh runs npm ci there)');
  }
  if (!args.artifacts) {
    console.error('report_check: --artifacts DIR is required');
    process.exit(2);
  }
  fs.mkdirSync(args.artifacts, { recursive: true });
  const work_dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qb-browser-'));
  let failed = 0;
  let passed = 0;
  let context;
  try {
    let reports;
    if (args.html) {
      reports = [{ label: path.basename(args.html, '.html'), json: args.json, html: args.html, hostile: args.hostile }];
    } else {
      if (!args.qosbench || !args.configs) {
        console.error('report_check: give --qosbench and --configs, or --html and --json');
        process.exit(2);
      }
      reports = produce_reports(args, work_dir);
    }
    context = await playwright.chromium.launchPersistentContext(path.join(work_dir, 'profile'), {
      executablePath: chromium_path,
      headless: true,
      args: kChromiumFlags,
      viewport: { width: 1280, height: 900 },
      offline: true,
    });
    for (const report of reports) {
      const { checker, png, page_width } = await check_report(context, report, args.artifacts);
      const ok = checker.failures.length === 0;
      ok ? ++passed : ++failed;
      console.log(`${ok ? 'PASS' : 'FAIL'} ${report.label}: ${checker.checks} checks, screenshot ${png}`);
      if (page_width > 1280) console.log(`  note: the page is ${page_width} px wide (viewport 1280): it scrolls sideways`);
      for (const f of checker.failures.slice(0, 40)) console.log(`  - ${f}`);
      if (checker.failures.length > 40) console.log(`  ... and ${checker.failures.length - 40} more`);
    }
  } finally {
    if (context) await context.close();
    fs.rmSync(work_dir, { recursive: true, force: true });
  }
  console.log(`browser: ${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

main().catch((e) => {
  console.error(`report_check: ${e.stack || e}`);
  process.exit(1);
});

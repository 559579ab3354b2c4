/**
 * The portal's one theme (SPEC 10.2): JSR-168's CSS class names (PLT.C) so that one stylesheet
 * styles every portlet; served by the portal itself (no external resources). Contrast is at least
 * 4.5:1 for text, focus is always visible, and the layout holds from 375 px to wide screens.
 */
export const STYLESHEET = `
*,*::before,*::after{box-sizing:border-box}
html{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:100%;line-height:1.5;color:#1b1f24;background:#f3f5f8}
body{margin:0;min-height:100vh;display:flex;flex-direction:column}
a{color:#0b57a4}
a:hover{color:#083f77}
:focus-visible{outline:3px solid #b35c00;outline-offset:2px}
.skip-link{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem 1rem;z-index:10}
.skip-link:focus{left:.5rem}
.portal-header{background:#17324d;color:#fff;padding:.75rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center;justify-content:space-between}
.portal-name{margin:0;font-size:1.25rem;font-weight:600}
.portal-name a{color:#fff;text-decoration:none}
.portal-user{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:0}
.portal-user a{color:#fff}
.portal-user form{margin:0}
.portal-user button{background:transparent;color:#fff;border:1px solid #fff;border-radius:4px;padding:.25rem .75rem;font:inherit;cursor:pointer}
.portal-nav{background:#fff;border-bottom:1px solid #d5dbe3}
.portal-nav ul{list-style:none;margin:0 auto;padding:0 1rem;display:flex;flex-wrap:wrap;gap:.25rem;max-width:80rem}
.portal-nav a{display:block;padding:.6rem .9rem;text-decoration:none;border-bottom:3px solid transparent}
.portal-nav a[aria-current="page"]{border-bottom-color:#0b57a4;font-weight:600;color:#1b1f24}
.portal-main{flex:1;width:100%;max-width:80rem;margin:0 auto;padding:1rem}
.portal-main>h1{font-size:1.5rem;margin:.25rem 0 1rem}
.portal-windows{display:grid;gap:1rem;grid-template-columns:1fr}
@media (min-width:56rem){.portal-windows{grid-template-columns:repeat(2,minmax(0,1fr))}.portal-windows>.portlet-maximized,.portal-windows>.portlet:only-child{grid-column:1/-1}}
.portal-footer{padding:1rem;text-align:center;color:#4a5563;font-size:.875rem}
.portlet{background:#fff;border:1px solid #d5dbe3;border-radius:6px;min-width:0;overflow-wrap:anywhere}
.portlet-title-bar{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center;justify-content:space-between;padding:.5rem .75rem;border-bottom:1px solid #d5dbe3;background:#eef2f7;border-radius:6px 6px 0 0}
.portlet-minimized .portlet-title-bar{border-bottom:0;border-radius:6px}
.portlet-title{font-size:1.1rem;margin:0}
.portlet-controls ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem}
.portlet-controls a,.portlet-controls span{display:inline-block;padding:.15rem .5rem;font-size:.875rem;border-radius:4px}
.portlet-controls span[aria-current]{background:#d5dbe3;color:#1b1f24}
.portlet-content{padding:.75rem}
.portlet-font{color:#1b1f24}
.portlet-font-dim{color:#4a5563}
.portlet-msg-status,.portlet-msg-info,.portlet-msg-error,.portlet-msg-alert,.portlet-msg-success{padding:.5rem .75rem;border-left:4px solid;margin:0 0 .75rem;border-radius:0 4px 4px 0}
.portlet-msg-status,.portlet-msg-info{border-color:#0b57a4;background:#edf4fc}
.portlet-msg-error{border-color:#b3261e;background:#fdf0ef;color:#7a1712}
.portlet-msg-alert{border-color:#b35c00;background:#fff5e8;color:#5c3000}
.portlet-msg-success{border-color:#1e7b34;background:#eef9f1;color:#13501f}
.portlet-section-header,.portlet-section-subheader{font-weight:600;margin:.75rem 0 .5rem}
.portlet-section-header{font-size:1.05rem}
.portlet-section-body,.portlet-section-text{margin:0 0 .5rem}
.portlet-section-alternate{background:#f6f8fa}
.portlet-section-selected{background:#e3edf9}
.portlet-section-footer{color:#4a5563;font-size:.875rem;margin-top:.75rem}
.portlet-form-label,.portlet-form-field-label{display:block;font-weight:600;margin:.75rem 0 .25rem}
.portlet-form-input-field,.portlet-form-field{width:100%;max-width:32rem;padding:.45rem .5rem;font:inherit;border:1px solid #6b7785;border-radius:4px;background:#fff;color:#1b1f24}
.portlet-form-button{margin-top:.75rem;padding:.45rem 1rem;font:inherit;border:1px solid #0b57a4;border-radius:4px;background:#0b57a4;color:#fff;cursor:pointer}
.portlet-form-button:hover{background:#083f77}
.portlet-icon-label,.portlet-dlg-icon-label{font-size:.875rem}
.portlet-table-header,.portlet-table-body,.portlet-table-alternate,.portlet-table-selected,.portlet-table-subheader,.portlet-table-footer,.portlet-table-text{padding:.35rem .5rem;text-align:left;vertical-align:top;border-bottom:1px solid #d5dbe3}
.portlet-table-header{background:#eef2f7;font-weight:600}
.portlet-table-alternate{background:#f6f8fa}
.portlet-table-selected{background:#e3edf9}
.portlet-table-footer{font-weight:600}
.portlet-content table{border-collapse:collapse;width:100%;display:block;overflow-x:auto}
.portlet-menu{list-style:none;padding:0;margin:0}
.portlet-menu-item,.portlet-menu-item-selected{padding:.25rem 0}
.portlet-menu-item-selected{font-weight:600}
/* The hook classes svc's portlets add to JSR-168's: fields, control rows, result tables, pager, details. */
.svc-form{margin:0 0 .5rem}
.svc-field{margin:0 0 .75rem}
.svc-field .portlet-form-label{margin-top:0}
.svc-field .portlet-font-dim,.svc-field .portlet-msg-error{margin:.25rem 0 0;font-size:.875rem}
.svc-field .portlet-msg-error{padding:.25rem .5rem}
.svc-search{display:flex;flex-wrap:wrap;gap:0 1rem;align-items:flex-end}
.svc-search .svc-field{flex:1 1 16rem}
.svc-search .portlet-form-button{margin:0 0 .75rem}
.svc-check{display:flex;gap:.5rem;align-items:center}
.svc-check .portlet-form-field-label{display:inline;margin:.25rem 0;font-weight:400}
.svc-controls{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;margin:.75rem 0 0}
.svc-controls form,.svc-control form{margin:0;display:inline}
.svc-controls .portlet-form-button,.svc-control .portlet-form-button{margin:0;padding:.2rem .6rem;font-size:.875rem}
.svc-link{display:inline-block;padding:.15rem 0}
.svc-table-wrap{overflow-x:auto;margin:.75rem 0 0}
.portlet-content table.svc-table{display:table;overflow-wrap:normal}
.svc-table caption{text-align:left;padding:0 0 .35rem;font-weight:600}
.svc-table th,.svc-table td{padding:.4rem .6rem;text-align:left;vertical-align:middle;border-bottom:1px solid #d5dbe3}
.svc-table thead th{white-space:nowrap}
td.svc-controls{display:table-cell;margin:0;white-space:nowrap}
.svc-control{display:inline-block;margin:0 .75rem 0 0}
.svc-control:last-child{margin-right:0}
.svc-pager{display:flex;flex-wrap:wrap;gap:1rem;margin:.75rem 0 0}
.svc-live-status:empty{display:none}
.svc-live-status{margin:.75rem 0 0}
.svc-details{display:grid;grid-template-columns:1fr;gap:0;margin:0}
.svc-details dt{margin:.5rem 0 0}
.svc-details dd{margin:0;overflow-wrap:anywhere}
@media (min-width:30rem){.svc-details{grid-template-columns:max-content 1fr}.svc-details dt,.svc-details dd{margin:0;padding:.3rem 1rem .3rem 0;border-bottom:1px solid #eef2f7}}
.svc-status{display:inline-block;padding:0 .5rem;border:1px solid;border-radius:999px;font-size:.875rem;white-space:nowrap}
.svc-status-active{color:#13501f;background:#eef9f1;border-color:#1e7b34}
.svc-status-disabled{color:#3d4651;background:#eef2f7;border-color:#6b7785}
.svc-status-locked{color:#7a1712;background:#fdf0ef;border-color:#b3261e}
.svc-status-unknown{color:#4a5563;border-color:#d5dbe3}
.svc-sort{display:inline-block;padding:.1rem 0}
.svc-sort-mark{display:inline-block;margin-left:.3rem;font-size:.8em}
.svc-sort-none{color:#4a5563}
.svc-table th.svc-select,.svc-table td.svc-select{width:2.25rem;padding-right:0}
.svc-select input{width:1.2rem;height:1.2rem;margin:0;vertical-align:middle}
.svc-select-label{display:inline-flex;padding:.3rem;cursor:pointer}
.svc-bulk{margin:.75rem 0 0}
.svc-bulk .portlet-form-label{margin:0 0 .25rem}
.svc-bulk-row{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.svc-bulk select.portlet-form-input-field{width:auto;min-width:9rem}
.svc-bulk .portlet-form-button{margin:0}
.svc-list{margin:.25rem 0 .75rem;padding-left:1.5rem}
.svc-events td:first-child{white-space:nowrap}
/* Below 40rem a result row is a card: its cells stacked with their column's name, the actions wrapping inside it, the sort links in a row above. */
@media (max-width:40rem){
.portlet-content table.svc-table.svc-stack{display:block;padding:0}
.svc-stack caption,.svc-stack thead,.svc-stack tbody,.svc-stack tbody tr,.svc-stack tbody td,.svc-stack tbody th{display:block}
.svc-stack thead tr{display:flex;flex-wrap:wrap;gap:0 .75rem;align-items:baseline}
.svc-stack thead tr.svc-sort-row::before{content:"Sort by:";font-weight:600}
.svc-stack thead th{border:0;padding:.15rem 0;background:none;white-space:normal}
.svc-stack thead th.svc-nosort{position:absolute;width:1px;height:1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.svc-stack tbody tr{position:relative;border:1px solid #d5dbe3;border-radius:6px;margin:.5rem 0;padding:.4rem .75rem}
.svc-stack tbody td,.svc-stack tbody th{border:0;padding:.15rem 0}
.svc-stack tbody td.svc-select{position:absolute;top:.25rem;right:.5rem;width:auto;padding:0}
.svc-stack tbody td[data-label]::before{content:attr(data-label) ": ";font-weight:600}
.svc-stack tbody td:empty{display:none}
.svc-table td.svc-controls{display:flex;white-space:normal;padding-top:.4rem}
.svc-stack.svc-events tbody tr{display:flex;flex-wrap:wrap;gap:0 .75rem;padding:.3rem .6rem;margin:.35rem 0}
.svc-stack.svc-events tbody td{display:inline-block}
.svc-stack.svc-events tbody td.svc-event-when{flex-basis:100%;font-weight:600}
}
.portal-login{max-width:24rem}
.svc-steps li{margin:0 0 .75rem}
.svc-qr-box{margin:.5rem 0 0;background:#fff;display:block;width:fit-content;border:1px solid #d5dbe3}
.svc-qr{display:block;width:12rem;height:12rem;max-width:100%}
.svc-secret{display:inline-block;font-size:1.05rem;letter-spacing:.05em;overflow-wrap:anywhere;padding:.1rem .3rem;background:#eef2f7}
.svc-codes{padding-left:2rem;margin:.5rem 0}
.svc-codes code{font-size:1.05rem;letter-spacing:.05em}
@media (min-width:40rem){.svc-codes{columns:2}}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;

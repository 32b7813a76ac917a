#pragma once
// kwb_ui is a static library: its compiled-in resources (resources/kwb.qrc)
// must be registered once before use. Idempotent and thread-safe.
namespace kwb::ui {
void initKwbResources();
}

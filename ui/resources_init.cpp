#include "resources_init.h"

#include <QtGlobal>

#include <mutex>

static void initKwbQrc()
{
    Q_INIT_RESOURCE(kwb);
}

namespace kwb::ui {

void initKwbResources()
{
    static std::once_flag once;
    std::call_once(once, initKwbQrc);
}

} // namespace kwb::ui

"""The action plugin: options in a dialog, progress while trellis routes,
the routes added to the open board (one undoable step)."""

import pcbnew
import wx

from .routing import RoutingError, route_board, selected_nets


class OptionsDialog(wx.Dialog):
    def __init__(self, parent, selection):
        super().__init__(parent, title="Route with trellis")
        grid = wx.FlexGridSizer(cols=2, vgap=6, hgap=8)
        self.backend = wx.Choice(self, choices=["auto", "cpu", "cuda", "reference"])
        self.backend.SetSelection(0)
        self.iterations = wx.SpinCtrl(self, min=1, max=1000, initial=50)
        self.keep = wx.CheckBox(self, label="Keep existing tracks")
        self.keep.SetValue(True)
        self.only_selected = wx.CheckBox(self, label=f"Only the selected nets ({len(selection)})")
        self.only_selected.SetValue(bool(selection))
        self.only_selected.Enable(bool(selection))
        grid.AddMany([(wx.StaticText(self, label="Backend")), (self.backend), (wx.StaticText(self, label="Iterations")),
                      (self.iterations), (self.keep), (wx.StaticText(self, label="")),
                      (self.only_selected), (wx.StaticText(self, label=""))])
        box = wx.BoxSizer(wx.VERTICAL)
        box.Add(grid, 0, wx.ALL, 10)
        box.Add(self.CreateButtonSizer(wx.OK | wx.CANCEL), 0, wx.ALL | wx.ALIGN_RIGHT, 10)
        self.SetSizerAndFit(box)


class TrellisRoutePlugin(pcbnew.ActionPlugin):
    def defaults(self):
        self.name = "Route with trellis"
        self.category = "Routing"
        self.description = "Routes the board with trellis (PathFinder negotiated congestion) and adds the tracks and vias"
        self.show_toolbar_button = True

    def Run(self):
        board = pcbnew.GetBoard()
        selection = selected_nets(board)
        dialog = OptionsDialog(None, selection)
        if dialog.ShowModal() != wx.ID_OK:
            dialog.Destroy()
            return
        backend = dialog.backend.GetString(dialog.backend.GetSelection())
        iterations, keep = dialog.iterations.GetValue(), dialog.keep.GetValue()
        nets = selection if dialog.only_selected.GetValue() else None
        dialog.Destroy()
        busy = wx.ProgressDialog("Route with trellis", "Starting trellis...", parent=None,
                                 style=wx.PD_APP_MODAL | wx.PD_ELAPSED_TIME)

        def progress(line):
            busy.Pulse(line[:120])
            wx.Yield()

        try:
            report = route_board(board, backend=backend, max_iterations=iterations, keep_existing=keep, nets=nets,
                                 progress=progress)
        except RoutingError as error:
            busy.Destroy()
            wx.MessageBox(str(error), "Route with trellis", wx.ICON_ERROR)
            return
        busy.Destroy()
        unrouted = report.get("unrouted_nets", [])
        wx.MessageBox(f"{report['nets_routed']} of {report['nets_to_route']} nets routed: {report['tracks_added']} "
                      f"tracks and {report['vias_added']} vias added." +
                      (f"\nUnrouted: {', '.join(unrouted)}" if unrouted else ""), "Route with trellis")
        pcbnew.Refresh()
